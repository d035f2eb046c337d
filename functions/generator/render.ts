/**
 * The embedded renderer: script to a 1080x1920, 30 fps, H.264 + AAC mp4 with +faststart, and a cover.
 *
 * Three ffmpeg runs for the picture, and the soundtrack (voice over ducking music, encoded to AAC by a fourth run)
 * made while the second runs. The first draws each scene's still once, a little taller than the frame (its
 * background, the caption laid out by measurement, the product badge, the call-to-action button), without and with
 * the scene's picture (pictures.ts), as raw frames, and the cover. The second makes the video: each scene's picture
 * rises into place over its still, then the still with the picture repeats under a slow pan (a crop window moving over
 * the taller still), and each scene slides in over the last frame of the one before. Only the entrance and the slide
 * are computed per frame: between them every frame is the same decoded still, which costs the encoder alone. The
 * third copies the video and the soundtrack into the mp4.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mixSoundtrack, type PlacedVoice, squeeze } from './audio.ts';
import { background, BG_SCALE, HEIGHT, WIDTH } from './backgrounds.ts';
import { AUDIO_ENCODER_ARGS, drawText, runFfmpeg, VIDEO_ENCODER_ARGS } from './ffmpeg.ts';
import { imageInput } from './image-decode.ts';
import { FONTS } from './fonts.ts';
import { drawable, layoutCaption, type CaptionLayout } from './layout.ts';
import { synthMusic } from './music.ts';
import { type Picture, picturesFor, rasterize } from './pictures.ts';
import { GeneratorFailed, type RenderRequest, type RenderResult, type Renderer, type Scene, type StageTime } from '../core/generator.ts';
import { VOICE_LEAD_IN, voiceMisfit } from '../core/voice-fit.ts';
import type { Providers } from './providers.ts';
import { DEFAULT_WPM, type Speech, Voice } from './voice.ts';

export const FPS = 30;
/** The slide of a scene over the one before, in frames (part of the entrance). */
const SLIDE_FRAMES = 8;
/** The picture's entrance: it rises into place and fades in, in frames. */
const ENTRANCE_FRAMES = 12;
const ENTRANCE_RISE = 60;
/** How far the slow pan moves over a scene, in pixels; the stills are this much taller than the frame. */
export const PAN = 48;
/** eSpeak's fastest. */
const MAX_WPM = 450;
/** Montserrat's capital height, as a share of the font size. */
const CAP_HEIGHT = 0.7;

/** Where things are drawn on the 1080x1920 frame; tests look at the same regions. */
export const REGIONS = {
  picture: { x: 260, y: 300, width: 560, height: 560 },
  caption: { x: 90, y: 900, width: 900, height: 520 },
  badge: { y: 1480, size: 44 },
  /** The logo's box (an asset, `params.logo`): top left, clear of the picture's entrance and the trial watermark. */
  logo: { x: 40, y: 60, width: 180, height: 180 },
  watermark: { x: 560, y: 60, width: 480, height: 90, size: 40 },
} as const;

/** The part of a still the picture rises through in its entrance (even, for yuv420p). */
const PATCH = { x: REGIONS.picture.x, y: REGIONS.picture.y, width: REGIONS.picture.width, height: REGIONS.picture.height + ENTRANCE_RISE };

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

type StageClock = ReturnType<typeof stageClock>;

/** Times the stages of one render (they overlap), for the bench and the logs. */
function stageClock() {
  const t0 = performance.now();
  const stages: StageTime[] = [];
  const now = () => (performance.now() - t0) / 1000;
  return {
    stages,
    async time<T>(stage: string, work: () => T | Promise<T>): Promise<T> {
      const start = now();
      try {
        return await work();
      } finally {
        stages.push({ stage, start, end: now() });
      }
    },
  };
}

/** A voice: eSpeak's (`Voice`), or a speech provider's for a cloned voice. */
type Speaker = (text: string, language: 'ru' | 'en', wordsPerMinute?: number) => Promise<Speech>;

/**
 * Speech for one scene, sped up when needed to fit it, with a breath before the cut. The script passed the voice rule
 * (core/voice-fit.ts), so whatever the fastest voice still overruns (a line of digits, a spelled-out word) is
 * squeezed into the scene: a script the rule lets through never fails here.
 */
export async function sceneVoice(scene: Scene, language: 'ru' | 'en', say: Speaker): Promise<PlacedVoice['samples'] | undefined> {
  if (!scene.voiceover.trim()) return undefined;
  const room = scene.seconds - VOICE_LEAD_IN;
  const slot = room - 0.25;
  let speech = await say(scene.voiceover, language);
  if (speech.seconds > slot) {
    const wpm = Math.min(MAX_WPM, ((DEFAULT_WPM * speech.seconds) / Math.max(0.1, slot)) * 1.03);
    speech = await say(scene.voiceover, language, wpm);
  }
  return speech.seconds > room ? squeeze(speech.samples, room) : speech.samples;
}

/**
 * The asset each scene shows in the picture region, if any: its script's `Image:`, else the placement picture in the
 * placement scenes (those that name the product).
 */
export function sceneImages(req: Pick<RenderRequest, 'script' | 'params'>): (string | undefined)[] {
  const placement = req.params.placement;
  const product = placement?.product.toLowerCase();
  return req.script.scenes.map(
    (s) =>
      s.image ??
      (placement?.image && product && [s.caption, s.visual, s.voiceover].some((t) => t.toLowerCase().includes(product)) ? placement.image : undefined),
  );
}

/** The trial watermark's drawtext, top right on every frame (tests draw the same one to compare). */
export function watermarkFilter(file: string): string {
  const wm = REGIONS.watermark;
  const style = 'fontcolor=white@0.9:borderw=3:bordercolor=black@0.6';
  return drawText({ font: FONTS.label, file, size: wm.size, style, x: `${wm.x + wm.width - 20}-text_w`, y: String(wm.y + 25) });
}

export class EmbeddedRenderer implements Renderer {
  /** The AI providers that deliver `ai_visual` and `voice: clone` (providers.ts); none by default. */
  constructor(private readonly providers: Providers = {}) {}

  async render(req: RenderRequest): Promise<RenderResult> {
    const { script, params } = req;
    const progress = req.onProgress ?? (() => undefined);
    if (!script.scenes.length) throw new GeneratorFailed('The script has no scenes');
    // The review refused an edit by the same rule; a written script that breaks it fails here, before any work.
    const misfit = voiceMisfit(script.scenes, script.language, params.voice);
    if (misfit) throw new GeneratorFailed(`The script cannot be spoken: ${misfit}`);
    mkdirSync(req.outDir, { recursive: true });
    // Named like the order's scratch folders, so that one a killed run left behind is swept with them.
    const dir = mkdtempSync(join(tmpdir(), 'order-render-'));
    // Whatever ffmpeg still runs when this render ends (a failure elsewhere) is killed with it.
    const abort = new AbortController();
    // eSpeak's worker, started at the first line and ended with the voice (or with a failure).
    const voice = new Voice();
    try {
      const scenes = script.scenes;
      const frames = scenes.map((scene) => Math.max(ENTRANCE_FRAMES + 1, Math.round(scene.seconds * FPS)));
      const total = frames.reduce((s, f) => s + f, 0) / FPS;

      // 1. The voice starts at once, in its worker, on the core the steps before the encode leave free; meanwhile
      // pictures, backgrounds and stills: all the video run reads, made one after the other.
      progress(0, 'layout');
      const clock = stageClock();
      const say = this.speaker(params, voice);
      // eSpeak's worker ends with the last line: its memory is not held through the encode.
      const voicesRun = clock.time('voice', () => this.voices(req, frames, say).finally(() => voice.close()));
      voicesRun.catch(() => undefined);
      const pictures = picturesFor(scenes, params.topic);
      const pictureFiles = await clock.time('pictures', () => this.pictureFiles(dir, req, pictures));
      const logo = params.logo ? await clock.time('logo', () => this.assetPicture(req, params.logo!, dir, 'logo', REGIONS.logo)) : undefined;
      if (params.ai_visual) await this.aiBackgrounds(dir, scenes);
      const cover = join(req.outDir, 'cover.jpg');
      const silent = join(dir, 'video-only.mp4');
      const stillsArgs = await clock.time('backgrounds', () => this.stillsArgs(dir, req, pictureFiles, cover, logo));
      await clock.time('stills', () => runFfmpeg(stillsArgs, undefined, abort.signal));

      // 2. The video, and beside it the rest of the soundtrack (music, mix, AAC): on two cores the encoder leaves room
      // for it, and nothing of it is left for after the encode but a copy of both streams into one file.
      progress(0.1, 'video');
      const videoArgs = this.videoArgs(dir, req, frames, pictureFiles, silent);
      const videoRun = clock.time('video', () => runFfmpeg(videoArgs, (seconds) => progress(0.1 + 0.8 * Math.min(1, seconds / total), 'video'), abort.signal));
      videoRun.catch(() => undefined);
      const soundtrack = join(dir, 'soundtrack.m4a');
      const soundtrackRun = voicesRun.then((voices) => this.soundtrack(dir, req, total, voices, clock, soundtrack, abort.signal));
      soundtrackRun.catch(() => undefined);
      await Promise.all([videoRun, soundtrackRun]);

      // 3. Both streams, copied into one file with the index first.
      progress(0.9, 'mux');
      const video = join(req.outDir, 'video.mp4');
      const mux = ['-y', '-i', silent, '-i', soundtrack, '-map', '0:v', '-map', '1:a', '-c', 'copy', '-t', total.toFixed(3)];
      await clock.time('mux', () => runFfmpeg([...mux, '-movflags', '+faststart', video], undefined, abort.signal));
      progress(1, 'done');
      return { video, cover, seconds: total, pictures: pictures.map((p) => p.name), stages: clock.stages };
    } finally {
      abort.abort();
      await voice.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Each scene's voice, placed at the scene's start. */
  private async voices(req: RenderRequest, frames: number[], say: Speaker): Promise<PlacedVoice[]> {
    const { script, params } = req;
    const voices: PlacedVoice[] = [];
    let at = 0;
    for (const [i, scene] of script.scenes.entries()) {
      if (params.voice !== 'none') {
        const samples = await sceneVoice(scene, script.language, say);
        if (samples) voices.push({ samples, at: at + VOICE_LEAD_IN });
      }
      at += frames[i]! / FPS;
    }
    return voices;
  }

  /** The voices over the music, mixed and encoded to AAC at `out`. */
  private async soundtrack(dir: string, req: RenderRequest, total: number, voices: PlacedVoice[], clock: StageClock, out: string, signal: AbortSignal) {
    const { script, params } = req;
    const music = await clock.time('music', () =>
      params.music === 'none' ? undefined : synthMusic(total, params.tone, params.music === 'song', script.pack.title.length),
    );
    const wav = join(dir, 'soundtrack.wav');
    await clock.time('mix', () => writeFileSync(wav, mixSoundtrack(total, voices, music)));
    await clock.time('aac', () => runFfmpeg(['-y', '-i', wav, '-map', '0:a', ...AUDIO_ENCODER_ARGS, out], undefined, signal));
  }

  /** The voice of the order: a cloned voice at the speech provider, or eSpeak's. */
  private speaker(params: RenderRequest['params'], voice: Voice): Speaker {
    if (params.voice !== 'clone') return (text, language, wordsPerMinute) => voice.speak(text, language, wordsPerMinute);
    const { speech, cloneVoice } = this.providers;
    // Refused at creation while no provider is configured; a configuration changed since then fails (and refunds).
    if (!speech || !cloneVoice) throw new GeneratorFailed('A cloned voice was ordered but no speech provider with a cloned voice is configured');
    return (text, _language, wordsPerMinute = DEFAULT_WPM) => speech.speak(text, cloneVoice, wordsPerMinute / DEFAULT_WPM);
  }

  /** Each scene's background made by the image generator from its visual hint and caption (ai-i.img). */
  private async aiBackgrounds(dir: string, scenes: Scene[]): Promise<void> {
    const { images } = this.providers;
    if (!images) throw new GeneratorFailed('AI visuals were ordered but no image generator is configured');
    for (const [i, scene] of scenes.entries()) {
      const prompt = `${scene.visual}. ${scene.caption}. A vertical photo for a short video, no text, no letters.`;
      writeFileSync(join(dir, `ai-${i}.img`), await images.generate(prompt));
    }
  }

  /**
   * Each distinct picture once, as a PNG of the picture region's size: a scene's asset (its `Image:`, or the placement
   * picture in a placement scene) where it has one, else the picture chosen for it.
   */
  private async pictureFiles(dir: string, req: RenderRequest, pictures: Picture[]): Promise<string[]> {
    const images = sceneImages(req);
    const files = new Map<string, string>();
    for (const [i, p] of pictures.entries()) {
      const asset = images[i];
      const name = asset ?? p.code;
      if (files.has(name)) continue;
      if (asset) {
        files.set(name, await this.assetPicture(req, asset, dir, `picture-${asset}`, REGIONS.picture));
        continue;
      }
      const file = join(dir, `picture-${p.code}.png`);
      writeFileSync(file, await rasterize(p, REGIONS.picture.width));
      files.set(p.code, file);
    }
    return pictures.map((p, i) => files.get(images[i] ?? p.code)!);
  }

  /**
   * An asset of the order (its copy, read by the render step) fitted into `box` keeping its proportions, centred on a
   * transparent PNG of the box's size. It is opened as the first-use check decoded it (image-decode.ts): its checked
   * format forced, the decoder's pixel cap.
   */
  private async assetPicture(req: RenderRequest, assetId: string, dir: string, name: string, box: { width: number; height: number }): Promise<string> {
    const source = req.images?.[assetId];
    // The order's recorded assets are all the render is given; a name outside them is never read.
    if (!source) throw new GeneratorFailed(`The order names the asset ${assetId}, which it has no copy of`);
    const out = join(dir, `${name}.png`);
    const { width: w, height: h } = box;
    const fit = `scale=${w}:${h}:force_original_aspect_ratio=decrease:flags=bicubic,format=rgba,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:color=black@0`;
    await runFfmpeg(['-y', ...imageInput(source.contentType, source.path), '-frames:v', '1', '-vf', fit, out]);
    return out;
  }

  /**
   * The stills run: for scene i, full-i.yuv (raw yuv420p, 1080 x 1920+PAN: the video's format, so the video run
   * decodes nothing) and patch-i.yuv, the part of the still the picture rises through, without it; the cover is the
   * first full still's top.
   */
  private stillsArgs(dir: string, req: RenderRequest, pictureFiles: string[], cover: string, logo?: string): string[] {
    const { script, params } = req;
    const args: string[] = ['-y'];
    const graph: string[] = [];
    const outputs: string[] = [];
    const last = script.scenes.length - 1;
    const badge = params.placement ? drawable(FONTS.label, `★ ${params.placement.product}`) : undefined;
    const pic = REGIONS.picture;
    script.scenes.forEach((scene, i) => {
      // The background: the image generator's picture (ai_visual), darkened so that captions read, or the gradient.
      let fit = `scale=${WIDTH}:${HEIGHT + PAN}:flags=bicubic`;
      if (params.ai_visual) {
        args.push('-i', join(dir, `ai-${i}.img`), '-i', pictureFiles[i]!);
        fit = `scale=${WIDTH}:${HEIGHT + PAN}:force_original_aspect_ratio=increase,crop=${WIDTH}:${HEIGHT + PAN},lutrgb=r=val*0.75:g=val*0.75:b=val*0.75`;
      } else {
        const raw = join(dir, `bg-${i}.rgb`);
        writeFileSync(raw, background(scene.visual, i));
        args.push('-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${WIDTH / BG_SCALE}x${HEIGHT / BG_SCALE}`, '-i', raw, '-i', pictureFiles[i]!);
      }
      // Without captions, only the call to action is still written on screen.
      const isCta = i === last && Boolean(params.cta);
      const still = { layout: layoutCaption(FONTS.caption, params.captions || isCta ? scene.caption : '', CAPTION_BOX), isCta };
      const filters = [fit, 'format=yuv420p', ...stillFilters(dir, i, still, badge)];
      // The logo, over the still (in the pan's middle), so that every frame and the cover carry it.
      const mark = logo ? `[s${i}];[s${i}][logo${i}]overlay=x=${REGIONS.logo.x}:y=${REGIONS.logo.y + PAN / 2}:format=auto,format=yuv420p` : '';
      graph.push(`[${2 * i}:v]${filters.join(',')}${mark},split=2[bare${i}][under${i}]`);
      graph.push(`[bare${i}]crop=${PATCH.width}:${PATCH.height}:${PATCH.x}:${PATCH.y}[patch${i}]`);
      graph.push(`[under${i}][${2 * i + 1}:v]overlay=x=${pic.x}:y=${pic.y}${i === 0 ? ',split=2[full0][cover0]' : `[full${i}]`}`);
      for (const kind of ['patch', 'full']) outputs.push('-map', `[${kind}${i}]`, '-frames:v', '1', '-f', 'rawvideo', join(dir, `${kind}-${i}.yuv`));
    });
    if (logo) {
      args.push('-i', logo);
      const n = script.scenes.length;
      graph.push(`[${2 * n}:v]split=${n}${script.scenes.map((_, i) => `[logo${i}]`).join('')}`);
    }
    graph.push(`[cover0]crop=${WIDTH}:${HEIGHT}:0:0[cover]`);
    writeFileSync(join(dir, 'stills.graph'), graph.join(';\n'));
    return [...args, '-filter_complex_script', join(dir, 'stills.graph'), ...outputs, '-map', '[cover]', '-frames:v', '1', '-q:v', '3', cover];
  }

  /**
   * The video run. Per scene: the entrance (the picture rising and fading in over the bare still); the full still
   * repeated; a crop window panning over it, up in even scenes and down in odd ones (in even steps, as yuv420p's
   * chroma needs), so that each scene starts where the one before ended; each scene but the first slides in over the
   * last frame of the one before. Loop and crop pass references to one decoded frame, so the frames after the
   * entrance cost the encoder alone (a dip to black at each cut and a progress bar on every frame cost 25% more).
   */
  private videoArgs(dir: string, req: RenderRequest, frames: number[], pictureFiles: string[], out: string): string[] {
    const args: string[] = ['-y'];
    const graph: string[] = [];
    const loop = (n: number) => `loop=loop=${n - 1}:size=1:start=0,setpts=N/${FPS}/TB`;
    const enter = ENTRANCE_FRAMES / FPS;
    const raw = (width: number, height: number) => ['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${width}x${height}`];
    frames.forEach((n, i) => {
      args.push(...raw(WIDTH, HEIGHT + PAN), '-i', join(dir, `full-${i}.yuv`), ...raw(PATCH.width, PATCH.height), '-i', join(dir, `patch-${i}.yuv`));
      args.push('-i', pictureFiles[i]!);
      const [full, patch, picture] = [3 * i, 3 * i + 1, 3 * i + 2];
      const uses = [`[full${i}]`, `[under${i}]`, ...(i < frames.length - 1 ? [`[next${i}]`] : [])];
      graph.push(`[${full}:v]split=${uses.length}${uses.join('')}`);
      graph.push(`[${picture}:v]format=rgba,${loop(ENTRANCE_FRAMES)},fade=t=in:st=0:d=${enter}:alpha=1[p${i}]`);
      // The entrance: the picture rises through the patch (composed at the patch's size, which is cheaper), and the
      // patch covers the picture at rest.
      graph.push(`[under${i}]${loop(ENTRANCE_FRAMES)}[u${i}];[${patch}:v]${loop(ENTRANCE_FRAMES)}[c${i}]`);
      graph.push(`[c${i}][p${i}]overlay=x=0:y='${ENTRANCE_RISE}*(1-t/${enter})*(1-t/${enter})'[rising${i}]`);
      graph.push(`[u${i}][rising${i}]overlay=x=${PATCH.x}:y=${PATCH.y}[ent${i}]`);
      graph.push(`[full${i}]${loop(n - ENTRANCE_FRAMES)}[mid${i}]`);
      let segments = [`[ent${i}]`, `[mid${i}]`];
      if (i > 0) {
        // The slide: the entrance's first frames cover the scene before from the right.
        graph.push(`[ent${i}]split=2[head${i}][tail${i}]`);
        graph.push(`[head${i}]trim=end_frame=${SLIDE_FRAMES},setpts=N/${FPS}/TB[in${i}]`);
        graph.push(`[tail${i}]trim=start_frame=${SLIDE_FRAMES},setpts=N/${FPS}/TB[rest-ent${i}]`);
        graph.push(`[next${i - 1}]${loop(SLIDE_FRAMES)}[before${i}]`);
        graph.push(`[before${i}][in${i}]overlay=x='${WIDTH}*(1-(n+1)/${SLIDE_FRAMES})':y=0[slide${i}]`);
        segments = [`[slide${i}]`, `[rest-ent${i}]`, `[mid${i}]`];
      }
      const y = i % 2 ? `${PAN}-2*trunc(${PAN / 2}*n/${n})` : `2*trunc(${PAN / 2}*n/${n})`;
      graph.push(`${segments.join('')}concat=n=${segments.length}:v=1:a=0,setpts=N/${FPS}/TB,crop=${WIDTH}:${HEIGHT}:0:'${y}'[v${i}]`);
    });
    let joined = `${frames.map((_, i) => `[v${i}]`).join('')}concat=n=${frames.length}:v=1:a=0`;
    if (req.watermark) {
      const file = join(dir, 'watermark.txt');
      writeFileSync(file, drawable(FONTS.label, req.watermark));
      joined += `,${watermarkFilter(file)}`;
    }
    graph.push(`${joined}[video]`);
    writeFileSync(join(dir, 'video.graph'), graph.join(';\n'));
    return [...args, '-filter_complex_script', join(dir, 'video.graph'), '-map', '[video]', ...VIDEO_ENCODER_ARGS, '-r', String(FPS), '-an', out];
  }
}
