/**
 * The embedded renderer: script to a 1080x1920, 30 fps, H.264 + AAC mp4 with +faststart, and a cover.
 *
 * Two ffmpeg runs. The first draws each scene's still once: its background, the caption laid out by measurement, the
 * product badge and the call-to-action button. The second turns each still into its scene (decoded once, looped for
 * the scene's frames, faded in and out), joins the scenes, draws the progress bar and, on trial videos, the
 * watermark on every frame, and muxes the soundtrack (voice over ducking music) mixed in memory.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mixSoundtrack, type PlacedVoice } from './audio.ts';
import { background, BG_SCALE, HEIGHT, WIDTH } from './backgrounds.ts';
import { drawText, ENCODER_ARGS, runFfmpeg } from './ffmpeg.ts';
import { FONTS } from './fonts.ts';
import { drawable, layoutCaption, type CaptionLayout } from './layout.ts';
import { synthMusic } from './music.ts';
import { GeneratorFailed, type RenderRequest, type RenderResult, type Renderer, type Scene } from '../core/generator.ts';
import { DEFAULT_WPM, speak } from './voice.ts';

export const FPS = 30;
const FADE = 0.2;
const VOICE_LEAD_IN = 0.15;
const MAX_WPM = 380;
/** Montserrat's capital height, as a share of the font size. */
const CAP_HEIGHT = 0.7;

/** Where things are drawn on the 1080x1920 frame; tests look at the same regions. */
export const REGIONS = {
  caption: { x: 90, y: 560, width: 900, height: 800 },
  badge: { y: 1480, size: 44 },
  watermark: { x: 560, y: 60, width: 480, height: 90, size: 40 },
  progress: { y: 1896, height: 12 },
} as const;

const CAPTION_BOX = { width: REGIONS.caption.width - 60, height: REGIONS.caption.height - 60, maxSize: 92, minSize: 40, lineSpacing: 1.25 };

interface SceneStill {
  layout: CaptionLayout;
  isCta: boolean;
}

/** The filters that draw one scene's still: caption panel, caption lines, badge, CTA button. */
function stillFilters(dir: string, i: number, still: SceneStill, badge: string | undefined): string[] {
  const { layout } = still;
  const filters: string[] = [];
  const blockHeight = layout.lines.length * layout.lineHeight;
  const top = Math.round(REGIONS.caption.y + (REGIONS.caption.height - blockHeight) / 2);
  if (layout.lines.length) {
    const widest = Math.max(...layout.widths);
    const panel = { w: Math.round(widest + 80), h: blockHeight + 50 };
    const color = still.isCta ? '0xF5B700@0.92' : 'black@0.38';
    filters.push(`drawbox=x=${Math.round((WIDTH - panel.w) / 2)}:y=${top - 25}:w=${panel.w}:h=${panel.h}:color=${color}:t=fill`);
  }
  layout.lines.forEach((line, k) => {
    const file = join(dir, `caption-${i}-${k}.txt`);
    writeFileSync(file, line);
    // Lines share one baseline grid (drawtext's y is the top of each line's own glyphs, so `ascent` is taken back).
    const baseline = top + k * layout.lineHeight + Math.round((layout.lineHeight + CAP_HEIGHT * layout.size) / 2);
    const colors = still.isCta ? 'fontcolor=0x1a1a1a' : 'fontcolor=white:borderw=5:bordercolor=black@0.75';
    filters.push(drawText({ font: FONTS.caption, file, size: layout.size, style: colors, x: '(w-text_w)/2', y: `${baseline}-ascent` }));
  });
  if (badge) {
    const file = join(dir, 'badge.txt');
    writeFileSync(file, badge);
    const style = 'fontcolor=white:box=1:boxcolor=black@0.45:boxborderw=18';
    filters.push(drawText({ font: FONTS.label, file, size: REGIONS.badge.size, style, x: '(w-text_w)/2', y: String(REGIONS.badge.y) }));
  }
  return filters;
}

/** Speech for one scene, sped up when needed to fit it; a voice that cannot fit is an impossible script. */
async function sceneVoice(scene: Scene, index: number, language: 'ru' | 'en'): Promise<PlacedVoice['samples'] | undefined> {
  if (!scene.voiceover.trim()) return undefined;
  const slot = scene.seconds - VOICE_LEAD_IN - 0.25;
  let speech = await speak(scene.voiceover, language);
  if (speech.seconds > slot) {
    const wpm = Math.min(MAX_WPM, ((DEFAULT_WPM * speech.seconds) / Math.max(0.1, slot)) * 1.03);
    speech = await speak(scene.voiceover, language, wpm);
    if (speech.seconds > scene.seconds - VOICE_LEAD_IN) {
      throw new GeneratorFailed(`The voice of scene ${index + 1} needs ${speech.seconds.toFixed(1)} s but the scene lasts ${scene.seconds} s`);
    }
  }
  return speech.samples;
}

/** The trial watermark's drawtext, top right on every frame (tests draw the same one to compare). */
export function watermarkFilter(file: string): string {
  const wm = REGIONS.watermark;
  const style = 'fontcolor=white@0.9:borderw=3:bordercolor=black@0.6';
  return drawText({ font: FONTS.label, file, size: wm.size, style, x: `${wm.x + wm.width - 20}-text_w`, y: String(wm.y + 25) });
}

export class EmbeddedRenderer implements Renderer {
  async render(req: RenderRequest): Promise<RenderResult> {
    const { script, params } = req;
    const progress = req.onProgress ?? (() => undefined);
    if (!script.scenes.length) throw new GeneratorFailed('The script has no scenes');
    mkdirSync(req.outDir, { recursive: true });
    // Named like the order's scratch folders, so that one a killed run left behind is swept with them.
    const dir = mkdtempSync(join(tmpdir(), 'order-render-'));
    // Whatever ffmpeg still runs when this render ends (a failure elsewhere) is killed with it.
    const abort = new AbortController();
    try {
      const total = script.scenes.reduce((s, sc) => s + sc.seconds, 0);
      const last = script.scenes.length - 1;
      const badge = params.placement ? drawable(FONTS.label, `★ ${params.placement.product}`) : undefined;

      // 1. Stills: one per scene, drawn once.
      progress(0, 'layout');
      // Without captions, only the call to action is still written on screen.
      const stills = script.scenes.map((scene, i) => {
        const isCta = i === last && Boolean(params.cta);
        return { layout: layoutCaption(FONTS.caption, params.captions || isCta ? scene.caption : '', CAPTION_BOX), isCta };
      });
      const stillArgs: string[] = [];
      const graph: string[] = [];
      script.scenes.forEach((scene, i) => {
        const raw = join(dir, `bg-${i}.rgb`);
        writeFileSync(raw, background(scene.visual, i));
        stillArgs.push('-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${WIDTH / BG_SCALE}x${HEIGHT / BG_SCALE}`, '-i', raw);
        const filters = [`scale=${WIDTH}:${HEIGHT}:flags=bicubic`, ...stillFilters(dir, i, stills[i]!, badge)];
        graph.push(`[${i}:v]${filters.join(',')}${i === 0 ? ',split=2[s0][cover]' : `[s${i}]`}`);
      });
      const cover = join(req.outDir, 'cover.jpg');
      const outputs = script.scenes.flatMap((_, i) => ['-map', `[s${i}]`, '-frames:v', '1', join(dir, `still-${i}.png`)]);
      writeFileSync(join(dir, 'stills.graph'), graph.join(';\n'));
      const stillsRun = runFfmpeg(
        ['-y', ...stillArgs, '-filter_complex_script', join(dir, 'stills.graph'), ...outputs, '-map', '[cover]', '-frames:v', '1', '-q:v', '3', cover],
        undefined,
        abort.signal,
      );
      stillsRun.catch(() => undefined);

      // 2. Soundtrack, while the stills are drawn: each scene's voice at its start, over the music.
      progress(0.05, 'voice');
      const voices: PlacedVoice[] = [];
      let at = 0;
      for (const [i, scene] of script.scenes.entries()) {
        if (params.voice !== 'none') {
          const samples = await sceneVoice(scene, i, script.language);
          if (samples) voices.push({ samples, at: at + VOICE_LEAD_IN });
        }
        at += scene.seconds;
      }
      progress(0.15, 'music');
      const music = params.music === 'none' ? undefined : synthMusic(total, params.tone, params.music === 'song', script.pack.title.length);
      const soundtrack = join(dir, 'soundtrack.wav');
      writeFileSync(soundtrack, mixSoundtrack(total, voices, music));
      await stillsRun;

      // 3. The video: scene by scene, then the overlays on every frame.
      progress(0.2, 'video');
      const videoArgs: string[] = [];
      const chain: string[] = [];
      script.scenes.forEach((scene, i) => {
        videoArgs.push('-i', join(dir, `still-${i}.png`));
        const frames = Math.max(1, Math.round(scene.seconds * FPS));
        const seconds = frames / FPS;
        chain.push(
          `[${i}:v]format=yuv420p,loop=loop=${frames - 1}:size=1:start=0,setpts=N/${FPS}/TB,` +
            `fade=t=in:st=0:d=${FADE},fade=t=out:st=${(seconds - FADE).toFixed(3)}:d=${FADE}[v${i}]`,
        );
      });
      const audioIndex = script.scenes.length;
      videoArgs.push('-i', soundtrack);
      const overlays = [`drawbox=x=0:y=${REGIONS.progress.y}:w='iw*t/${total.toFixed(3)}':h=${REGIONS.progress.height}:color=white@0.85:t=fill`];
      if (req.watermark) {
        const file = join(dir, 'watermark.txt');
        writeFileSync(file, drawable(FONTS.label, req.watermark));
        overlays.push(watermarkFilter(file));
      }
      const joined = `${script.scenes.map((_, i) => `[v${i}]`).join('')}concat=n=${script.scenes.length}:v=1:a=0,${overlays.join(',')}[video]`;
      writeFileSync(join(dir, 'video.graph'), [...chain, joined].join(';\n'));
      const video = join(req.outDir, 'video.mp4');
      await runFfmpeg(
        [
          '-y',
          ...videoArgs,
          '-filter_complex_script',
          join(dir, 'video.graph'),
          '-map',
          '[video]',
          '-map',
          `${audioIndex}:a`,
          ...ENCODER_ARGS,
          '-r',
          String(FPS),
          '-t',
          total.toFixed(3),
          '-movflags',
          '+faststart',
          video,
        ],
        (seconds) => progress(0.2 + 0.8 * Math.min(1, seconds / total), 'video'),
        abort.signal,
      );
      progress(1, 'done');
      return { video, cover, seconds: total };
    } finally {
      abort.abort();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
