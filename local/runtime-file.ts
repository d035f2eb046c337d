/** DATA_DIR/runtime.json: where a running `npm start` has its local services, so the operator CLI can reach them. */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RuntimeInfo {
  pid: number;
  baseUrl: string;
  env: Record<string, string>;
}

const fileOf = (dataDir: string) => join(dataDir, 'runtime.json');

/** Owner-only: the settings hold the link-signing key. */
export const writeRuntime = (dataDir: string, info: RuntimeInfo) => {
  writeFileSync(fileOf(dataDir), JSON.stringify(info, null, 2), { mode: 0o600 });
  chmodSync(fileOf(dataDir), 0o600);
};
export const removeRuntime = (dataDir: string) => rmSync(fileOf(dataDir), { force: true });

/** The running service's info, or undefined when none runs on this data folder. */
export function readRuntime(dataDir: string): RuntimeInfo | undefined {
  if (!existsSync(fileOf(dataDir))) return undefined;
  const info = JSON.parse(readFileSync(fileOf(dataDir), 'utf8')) as RuntimeInfo;
  try {
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}
