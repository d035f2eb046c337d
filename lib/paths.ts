import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');
