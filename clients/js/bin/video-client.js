#!/usr/bin/env node
// The command line's entry: plain JavaScript, so that npm links it even before dist/ is built (npm run build).
import { main } from '../dist/cli.js';

process.exitCode = await main(process.argv.slice(2), process);
