/**
 * Text as written: captions, the CTA and the product badge with `%`, `\`, quotes, colons and drawtext's own
 * `%{...}` syntax are read back from the rendered frames with tesseract. ffmpeg's drawtext expands its text by
 * default, which lost everything before a `%` and printed the server's clock for `%{localtime}`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVideoBody } from '../../functions/contract/orders.ts';
import type { RenderResult, Script } from '../../functions/core/generator.ts';
import { parseScript } from '../../functions/core/script-text.ts';
import { EmbeddedRenderer, REGIONS } from '../../functions/generator/render.ts';
import { foldForOcr, ocrMissing, readText } from '../support/media.ts';

const dir = mkdtempSync(join(tmpdir(), 'text-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const CTA = 'Save 50% today';
const PRODUCT = 'Чай "Утро" 100%';
const CAPTIONS = ['Скидка 50% на зелёный чай до пятницы', 'Папка: чай\\новый, а %{localtime} и %{pts} не время', `Say "hello": it's 100% «чай» \\o/`, CTA];
const SCENE_SECONDS = 2;
let video: RenderResult;

before(async () => {
  if (ocrMissing) return;
  const params = createVideoBody.parse({ topic: 'Чай', language: 'ru', cta: CTA, placement: { product: PRODUCT } });
  const script: Script = {
    language: 'ru',
    scenes: CAPTIONS.map((caption) => ({ caption, voiceover: 'Чай.', visual: 'чай', seconds: SCENE_SECONDS })),
    pack: { title: 'Чай', description: 'Чай', hashtags: [] },
  };
  video = await new EmbeddedRenderer().render({ script, params, outDir: join(dir, 'out') });
});

describe('text in the frames', { skip: ocrMissing }, () => {
  it('draws every caption as written: %, \\, quotes, colons and %{...} (OCR of each scene)', () => {
    CAPTIONS.forEach((caption, i) => {
      const read = readText(video.video, (i + 0.5) * SCENE_SECONDS, REGIONS.caption, caption === CTA ? 'dark' : 'light');
      assert.ok(foldForOcr(read).includes(foldForOcr(caption)), `scene ${i + 1}: wrote ${JSON.stringify(caption)}, read ${JSON.stringify(read)}`);
    });
  });

  it('draws the CTA button and the product badge as written', () => {
    const last = (CAPTIONS.length - 0.5) * SCENE_SECONDS;
    assert.match(foldForOcr(readText(video.video, last, REGIONS.caption, 'dark')), /save 50% today/);
    const badge = { x: 0, y: REGIONS.badge.y - REGIONS.badge.size, width: 1080, height: REGIONS.badge.size * 3 };
    const read = readText(video.video, 1, badge, 'light');
    assert.ok(foldForOcr(read).includes(foldForOcr(`★ ${PRODUCT}`).slice(2)), `badge read ${JSON.stringify(read)}`);
  });
});

describe('an edited script', () => {
  it('keeps %, \\, quotes and colons in the captions it gives the renderer', () => {
    const scenes = parseScript(['Caption: Скидка 50% до пятницы', 'Voice: Успейте.', '', 'Caption: "a:b" \\ %{pts}', 'Voice: Всё.'].join('\n'), 20);
    assert.deepEqual(
      scenes.map((s) => s.caption),
      ['Скидка 50% до пятницы', '"a:b" \\ %{pts}'],
    );
  });
});
