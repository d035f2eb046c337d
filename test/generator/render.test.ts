/**
 * Real renders checked with the real ffprobe and ffmpeg: streams, duration, sound, and pixels of frames. The fixture
 * mixes Cyrillic and Latin, a word too long for a line, a long caption and emoji.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVideoBody } from '../../functions/contract/orders.ts';
import { FFMPEG, runFfmpeg } from '../../functions/generator/ffmpeg.ts';
import { GeneratorBusy, GeneratorFailed, type RenderResult, type Script } from '../../functions/core/generator.ts';
import { EmbeddedRenderer, REGIONS, watermarkFilter } from '../../functions/generator/render.ts';
import { framesAt, inkFraction, meanAbsDiff, probe, region, volumeOf } from '../support/media.ts';

const dir = mkdtempSync(join(tmpdir(), 'render-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const params = createVideoBody.parse({ topic: 'Кофе и code', language: 'ru', cta: 'Подпишитесь!', placement: { product: 'Чай «Утро»' } });
const script: Script = {
  language: 'ru',
  scenes: [
    { caption: 'Непереносимость: Donaudampfschifffahrtsgesellschaftskapitän ☕️🔥', voiceover: 'Привет! Это тест, hello world.', visual: 'утро', seconds: 2.5 },
    {
      caption: 'Очень длинная подпись, которая never fits on one line и должна переноситься аккуратно, без обрезки по краям кадра, ок?',
      voiceover: 'Длинная подпись переносится.',
      visual: 'город',
      seconds: 2.5,
    },
    { caption: 'Emoji 😀🎉 only here 🚀', voiceover: 'Эмодзи не рисуются квадратами.', visual: 'природа', seconds: 2.5 },
    { caption: 'Подпишитесь!', voiceover: 'Подпишитесь.', visual: 'финал', seconds: 2.5 },
  ],
  pack: { title: 'Кофе и code', description: 'Тест', hashtags: ['#кофе'] },
};
const renderer = new EmbeddedRenderer();
let trial: RenderResult;
let plain: RenderResult;

before(async () => {
  trial = await renderer.render({ script, params, watermark: 'video.example (AI)', outDir: join(dir, 'trial') });
  plain = await renderer.render({ script, params, outDir: join(dir, 'plain') });
});

describe('the renderer', () => {
  it('writes a 1080x1920 30 fps H.264 + AAC mp4 with faststart, as long as the script', () => {
    const p = probe(trial.video);
    assert.equal(p.video.codec_name, 'h264');
    assert.deepEqual([p.video.width, p.video.height], [1080, 1920]);
    assert.equal(p.video.r_frame_rate, '30/1');
    assert.equal(p.video.pix_fmt, 'yuv420p');
    assert.equal(p.audio?.codec_name, 'aac');
    assert.ok(Math.abs(p.duration - 10) <= 0.5, `duration ${p.duration}`);
    assert.ok(p.faststart, 'moov before mdat');
    const cover = probe(trial.cover);
    assert.deepEqual([cover.video.width, cover.video.height], [1080, 1920]);
  });

  it('has sound, not silence', () => {
    const v = volumeOf(trial.video);
    assert.ok(v.mean > -35, `mean volume ${v.mean} dB`);
    assert.ok(v.max > -12, `peak ${v.max} dB`);
  });

  it('draws each scene’s picture and caption in their regions, and nothing between the badge and the bottom', () => {
    const times = [1.25, 3.75, 6.25, 8.75];
    const at = framesAt(plain.video, times);
    for (const t of times) {
      const caption = at.region(t, REGIONS.caption);
      assert.ok(inkFraction(caption) > 0.02, `caption region at ${t}s: ${inkFraction(caption)} ink`);
      const picture = at.region(t, REGIONS.picture);
      assert.ok(inkFraction(picture, 40) > 0.1, `picture region at ${t}s: ${inkFraction(picture, 40)} ink`);
      const empty = at.region(t, { x: 90, y: 1600, width: 900, height: 260 });
      assert.ok(inkFraction(empty) < 0.001, `something below the badge at ${t}s: ${inkFraction(empty)}`);
    }
  });

  it('moves: the picture rises in, the still pans, and each scene slides in over the one before', () => {
    const halfSlide = 2.5 + 4 / 30;
    const at = framesAt(plain.video, [0.05, 0.6, 1.2, 1.25, 2.3, 2.4, halfSlide]);
    const pictureAt = (t: number) => at.region(t, REGIONS.picture);
    assert.ok(meanAbsDiff(pictureAt(0.05), pictureAt(0.6)) > 5, 'the entrance moves the picture');
    const whole = { x: 0, y: 0, width: 1080, height: 1920 };
    assert.ok(meanAbsDiff(at.region(0.6, whole), at.region(2.3, whole)) > 1, 'the pan moves the still');
    assert.ok(meanAbsDiff(at.region(1.2, whole), at.region(1.25, whole)) < 3, 'but slowly: frames 1/20 s apart differ little');
    // Half-way through the slide into scene 2 (at 2.5 s), its right side has changed far more than its left.
    const side = (x: number) => ({ x, y: 0, width: 360, height: 1920 });
    const changed = (x: number) => meanAbsDiff(at.region(halfSlide, side(x)), at.region(2.4, side(x)));
    assert.ok(changed(720) > changed(0) + 5, `slide: right side changed ${changed(720)}, left side ${changed(0)}`);
  });

  it('shows the first scene’s picture on the cover', () => {
    const cover = region(plain.cover, 0, REGIONS.picture);
    assert.ok(inkFraction(cover, 40) > 0.1, 'a picture on the cover');
    // The end of the first scene's entrance (frame 12), its pan 6 px along (2 * trunc(24 * 12 / 75)).
    const at = framesAt(plain.video, [12.5 / 30, 3.75]);
    const first = at.region(12.5 / 30, { ...REGIONS.picture, y: REGIONS.picture.y - 6 });
    const second = at.region(3.75, REGIONS.picture);
    assert.ok(
      meanAbsDiff(cover, first) < meanAbsDiff(cover, second) / 2,
      `cover vs scene 1: ${meanAbsDiff(cover, first)}, vs scene 2: ${meanAbsDiff(cover, second)}`,
    );
  });

  it('puts the forced watermark on trial videos only, on every scene', () => {
    const times = [0.5, 3.75, 6.25, 9.5];
    const [trialAt, plainAt] = [framesAt(trial.video, times), framesAt(plain.video, times)];
    for (const t of times) {
      const withMark = trialAt.region(t, REGIONS.watermark);
      const without = plainAt.region(t, REGIONS.watermark);
      assert.ok(meanAbsDiff(withMark, without) > 3, `watermark region differs by ${meanAbsDiff(withMark, without)} at ${t}s`);
      assert.ok(meanAbsDiff(trialAt.region(t, REGIONS.caption), plainAt.region(t, REGIONS.caption)) < 2, 'captions equal');
    }
  });

  it('is looked at frame by frame as one decoding pass reads it (framesAt gives the bytes region() gives)', () => {
    // The frame at each time is the first at or after it, fractional frame times included.
    const times = [0.05, 12.5 / 30, 2.5 + 4 / 30];
    const at = framesAt(trial.video, times);
    const whole = { x: 0, y: 0, width: 1080, height: 1920 };
    for (const t of times) assert.ok(at.region(t, whole).equals(region(trial.video, t, whole)), `the frame at ${t} s`);
    const textFile = join(dir, 'drawn.txt');
    writeFileSync(textFile, 'video.example (AI)');
    const vf = watermarkFilter(textFile);
    const r = REGIONS.watermark;
    const seeked = execFileSync(FFMPEG, [
      '-v',
      'error',
      '-ss',
      String(times[2]),
      '-i',
      trial.video,
      '-frames:v',
      '1',
      '-vf',
      `${vf},crop=${r.width}:${r.height}:${r.x}:${r.y},format=gray`,
      '-f',
      'rawvideo',
      '-',
    ]);
    assert.ok(at.drawn(times[2]!, r, vf).equals(seeked), 'a filter drawn on the frame');
  });

  it('speaks from the start, encodes when the stills exist, makes the rest of the soundtrack meanwhile, then only copies', () => {
    const at = Object.fromEntries((trial.stages ?? []).map((t) => [t.stage, t]));
    assert.deepEqual(Object.keys(at).sort(), ['aac', 'backgrounds', 'mix', 'music', 'mux', 'pictures', 'stills', 'video', 'voice']);
    const { pictures, stills, video, voice, music, mix, aac, mux } = at as Record<string, { start: number; end: number }>;
    assert.ok(voice!.start <= pictures!.start, 'the voice from the start');
    assert.ok(video!.start >= stills!.end, 'the encode reads the stills');
    for (const [stage, t] of Object.entries({ music, mix, aac })) assert.ok(t!.start >= video!.start, `${stage} before the encode`);
    assert.ok(voice!.end <= music!.start && music!.end <= mix!.start && mix!.end <= aac!.start, 'the soundtrack in order');
    assert.ok(mux!.start >= Math.max(video!.end, aac!.end), 'the mux after both');
  });

  it('refuses an impossible script (a voice longer than its scene) as a lasting failure', async () => {
    const impossible: Script = {
      ...script,
      scenes: [{ caption: 'Коротко', voiceover: 'Очень длинный текст озвучки. '.repeat(12), visual: 'x', seconds: 1.5 }],
    };
    await assert.rejects(renderer.render({ script: impossible, params, outDir: join(dir, 'impossible') }), GeneratorFailed);
  });

  it('reports a stopped engine as a failure that may pass', async () => {
    const abort = new AbortController();
    const run = runFfmpeg(['-f', 'lavfi', '-i', 'nullsrc=s=1080x1920', '-f', 'null', '-'], undefined, abort.signal);
    setTimeout(() => abort.abort(), 300);
    await assert.rejects(run, GeneratorBusy);
    assert.ok(existsSync(trial.video));
  });
});
