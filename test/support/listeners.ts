/**
 * The TCP sockets a process listens on, read from Linux's /proc (its fd links and the kernel's socket tables); and a
 * loopback port that nothing listens on.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

export interface Listener {
  /** The bound address as the kernel holds it: 127.0.0.1, 0.0.0.0, ::, ::ffff:127.0.0.1, ... */
  address: string;
  port: number;
}

const LISTEN = '0A';

/** /proc/net/tcp{,6} store addresses as 32-bit words in host order (little-endian here). */
function decode(hex: string): string {
  const words = hex.match(/.{8}/g)!.map((w) => Buffer.from(w, 'hex').reverse());
  if (words.length === 1) return [...words[0]!].join('.');
  const bytes = Buffer.concat(words);
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${[...bytes.subarray(12)].join('.')}`;
  const groups = [...Array(8).keys()].map((i) => bytes.readUInt16BE(i * 2).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

export function listenersOf(pid: number): Listener[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const found: Listener[] = [];
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state !== LISTEN || !inodes.has(inode!)) continue;
      const [addr, port] = local!.split(':');
      found.push({ address: decode(addr!), port: Number.parseInt(port!, 16) });
    }
  }
  return found;
}

export const isLoopback = (address: string) => /^(127\.|::ffff:127\.)/.test(address) || address === '::1';

/** A loopback port that nothing listens on: taken, then let go. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}
