/**
 * Render speed and memory: a 30 s 1080x1920 video through `npm run render`, three times, each in its own process, with
 * the resident memory of that process and its ffmpeg children sampled from /proc every 20 ms. The job time is the one
 * bin/render.ts prints: prompt to mp4 on disk (plan, script, voice, music, ffmpeg, the copy out), with the time of each
 * stage; the command's wall time adds the start of Node, tsx and the imports. The floor is encoded before the first
 * run and after each, and each run is compared with the floors either side of it: the host is shared, and a ratio
 * measured beside its floor holds where absolute times drift. The run reported is the one of median ratio.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENCODER_ARGS, FFMPEG } from '../functions/generator/ffmpeg.ts';
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

/**
 * The floor: ffmpeg alone encoding a plain 1080x1920 video with a tone, of the same length and with the renderer's
 * encoder settings. What the renderer adds over it is scenes, captions, voice and music.
 */
function encodeFloorSeconds(seconds: number, dir: string): number {
  const started = performance.now();
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    `color=c=0x336699:s=1080x1920:r=30:d=${seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
  ];
  args.push(...ENCODER_ARGS, '-shortest', '-y', join(dir, 'floor.mp4'));
  const res = spawnSync(FFMPEG, args, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`the floor encode failed: ${res.stderr}`);
  return (performance.now() - started) / 1000;
}

/** One stage of the render, from the start of the render (stages overlap). */
export interface Stage {
  stage: string;
  start: number;
  end: number;
}

export interface RenderRun {
  videoSeconds: number;
  /** Prompt to mp4: plan, script and render, as bin/render.ts times them. */
  jobSeconds: number;
  planSeconds: number;
  /** The command from spawn to exit: the job plus Node's and tsx's start and the imports. */
  commandSeconds: number;
  peakMb: number;
  stages: Stage[];
  /** The mean of the floors encoded right before and right after this run. */
  floorSeconds: number;
  /** The job's speed as a share of the floor's: floorSeconds / jobSeconds. */
  ofFloor: number;
}

export interface RenderFigures {
  /** In the order they ran. */
  runs: RenderRun[];
  /** The run of median share of the floor. */
  median: RenderRun;
  /** The highest peak of the runs. */
  peakMb: number;
}

const PROMPT = 'Energetic 30 seconds video about morning coffee with a song, call to action: Follow us';

async function renderOnce(dir: string): Promise<Omit<RenderRun, 'floorSeconds' | 'ofFloor'>> {
  const spawned = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/render.ts', PROMPT, '--out', join(dir, 'bench.mp4')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  let peakMb = 0;
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, treeRssMb(child.pid!))), 20);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const commandSeconds = (performance.now() - spawned) / 1000;
  clearInterval(sampler);
  const m = /\(([\d.]+) s, made in ([\d.]+) s: plan and script ([\d.]+) s, render [\d.]+ s\)/.exec(out);
  if (code !== 0 || !m) throw new Error(`render failed:\n${out}`);
  const stages = [...(/^stages: (.*)$/m.exec(out)?.[1] ?? '').matchAll(/(\w+) ([\d.]+)-([\d.]+)/g)].map((s) => ({
    stage: s[1]!,
    start: Number(s[2]),
    end: Number(s[3]),
  }));
  return { videoSeconds: Number(m[1]), jobSeconds: Number(m[2]), planSeconds: Number(m[3]), commandSeconds, peakMb, stages };
}

export async function benchRender(runs = 3): Promise<RenderFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-render-'));
  try {
    const done: RenderRun[] = [];
    // One render first, not counted: on a cold cache tsx compiles the sources in the render's process (about 140 MB
    // more at its peak: 664 MB against 515-523 MB after), which the bundled function on AWS never does.
    await renderOnce(dir);
    // The floor's length is the video's: 30 s, as the prompt asks (checked against the job's below).
    let floorBefore = encodeFloorSeconds(30, dir);
    for (let i = 0; i < runs; i++) {
      const run = await renderOnce(dir);
      if (Math.abs(run.videoSeconds - 30) > 0.5) throw new Error(`the video lasts ${run.videoSeconds} s, not 30 s`);
      const floorAfter = encodeFloorSeconds(30, dir);
      const floorSeconds = (floorBefore + floorAfter) / 2;
      done.push({ ...run, floorSeconds, ofFloor: floorSeconds / run.jobSeconds });
      floorBefore = floorAfter;
    }
    const median = [...done].sort((a, b) => a.ofFloor - b.ofFloor)[Math.floor(done.length / 2)]!;
    return { runs: done, median, peakMb: Math.max(...done.map((r) => r.peakMb)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
