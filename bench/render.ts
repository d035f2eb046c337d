/**
 * Render speed and memory: one 30 s 1080x1920 video through `npm run render`, in its own process, with the resident
 * memory of that process and its ffmpeg children sampled from /proc every 20 ms.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../local/stack.ts';

function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Resident memory of a process and all its descendants, in MB. */
function treeRssMb(root: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* the process ended while being read */
    }
  }
  let kb = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    kb += rssKb(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return kb / 1024;
}

export async function benchRender(): Promise<{ videoSeconds: number; renderSeconds: number; speed: number; peakMb: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-render-'));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/render.ts', 'Energetic 30 seconds video about morning coffee with a song, call to action: Follow us', '--out', join(dir, 'bench.mp4')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    let peakMb = 0;
    const sampler = setInterval(() => (peakMb = Math.max(peakMb, treeRssMb(child.pid!))), 20);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearInterval(sampler);
    const m = /\(([\d.]+) s, rendered in ([\d.]+) s\)/.exec(out);
    if (code !== 0 || !m) throw new Error(`render failed:\n${out}`);
    const videoSeconds = Number(m[1]);
    const renderSeconds = Number(m[2]);
    return { videoSeconds, renderSeconds, speed: videoSeconds / renderSeconds, peakMb };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
