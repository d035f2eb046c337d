/**
 * The render image's ffmpeg, made on this machine the way the image makes it (lib/render-image/collect-ffmpeg.sh on
 * Debian's own ffmpeg package): the copy runs with nothing from the system, renders a whole order's video with the
 * generator's filter graphs, and a wrong release is refused, by the script and by the function's check. Debian 12 here
 * ships ffmpeg 5.1 where the image's Debian 13 ships 7.1; .ci/run installs the package.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkFfmpegRelease, FFMPEG } from '../../functions/generator/ffmpeg.ts';
import { ROOT } from '../../lib/paths.ts';
import type { AssetContentType } from '../../functions/contract/assets.ts';
import { signatureRefusal } from '../../functions/core/assets.ts';
import { decodeImage } from '../../functions/generator/image-decode.ts';
import { encoded, hostileImages } from '../support/hostile-images.ts';
import { probe } from '../support/media.ts';

const DEBIAN_FFMPEG = '/usr/bin/ffmpeg';
const SCRIPT = join(ROOT, 'lib', 'render-image', 'collect-ffmpeg.sh');
const dir = mkdtempSync(join(tmpdir(), 'render-image-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const debianRelease = () => /^ffmpeg version (\d+\.\d+)/.exec(spawnSync(DEBIAN_FFMPEG, ['-version'], { encoding: 'utf8' }).stdout)?.[1];

describe("the render image's ffmpeg", () => {
  it('refuses an ffmpeg that is not the release it names (the npm build is a 2018 snapshot)', () => {
    assert.throws(() => checkFfmpegRelease(FFMPEG, '7.1'), /is "N-\d+-\w+-static", not release 7\.1/);
  });

  it("collects Debian's ffmpeg with its libraries and loader, and the copy renders an order's video on its own", {
    skip: existsSync(DEBIAN_FFMPEG) ? false : `no ${DEBIAN_FFMPEG}: apt-get install ffmpeg (.ci/run does)`,
  }, () => {
    const release = debianRelease()!;
    const wrong = spawnSync('sh', [SCRIPT, DEBIAN_FFMPEG, join(dir, 'wrong'), '9.9'], { encoding: 'utf8' });
    assert.equal(wrong.status, 1);
    assert.match(wrong.stderr, /is not release 9\.9/);

    const out = join(dir, 'ffmpeg');
    const collected = spawnSync('sh', [SCRIPT, DEBIAN_FFMPEG, out, release], { encoding: 'utf8' });
    assert.equal(collected.status, 0, collected.stderr);
    const copy = join(out, 'bin', 'ffmpeg');
    checkFfmpegRelease(copy, release);

    const video = join(dir, 'tea.mp4');
    const res = spawnSync(process.execPath, ['--import', 'tsx', 'bin/render.ts', 'A 10 second video about green tea', '--out', video], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, FFMPEG_PATH: copy, FFMPEG_RELEASE: release },
      timeout: 240_000,
    });
    assert.equal(res.status, 0, res.stderr.slice(-2000));
    const p = probe(video);
    assert.deepEqual([p.video.codec_name, p.video.width, p.video.height], ['h264', 1080, 1920]);
    assert.ok(Math.abs(p.duration - 10) < 0.6, `duration ${p.duration}`);
  });

  it("checks pictures with Debian's ffmpeg as with the npm one: the hostile set refused, good pictures sized", {
    skip: existsSync(DEBIAN_FFMPEG) ? false : `no ${DEBIAN_FFMPEG}: apt-get install ffmpeg (.ci/run does)`,
  }, async () => {
    const pictures = [
      ...hostileImages().map((h) => ({ ...h, expect: undefined })),
      { name: 'PNG 64x48', type: 'image/png' as const, bytes: encoded('png', '64x48'), expect: { width: 64, height: 48 } },
      { name: 'JPEG 640x360', type: 'image/jpeg' as const, bytes: encoded('jpg', '640x360'), expect: { width: 640, height: 360 } },
      { name: 'WebP 100x200', type: 'image/webp' as const, bytes: encoded('webp', '100x200'), expect: { width: 100, height: 200 } },
    ];
    const files = pictures.map((p, i) => {
      const file = join(dir, `picture-${i}`);
      writeFileSync(file, p.bytes);
      return [file, p.type];
    });
    // The decoder reads FFMPEG_PATH when it loads: a process of its own, as the check function is.
    const script = join(dir, 'decode.mts');
    writeFileSync(
      script,
      `import { decodeImage } from ${JSON.stringify(join(ROOT, 'functions/generator/image-decode.ts'))};\n` +
        `const out = [];\nfor (const [f, t] of ${JSON.stringify(files)}) out.push(await decodeImage(f, t));\nconsole.log(JSON.stringify(out));\n`,
    );
    const res = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FFMPEG_PATH: DEBIAN_FFMPEG } });
    assert.equal(res.status, 0, res.stderr);
    const verdicts = JSON.parse(res.stdout) as ({ width: number; height: number } | { reason: string })[];
    pictures.forEach((p, i) => {
      if (p.expect) assert.deepEqual(verdicts[i], p.expect, p.name);
      // As the check reads it: the signature from byte 0 first (the decoder skips what precedes a JPEG's), then the decode.
      else assert.ok(signatureRefusal(p.bytes, p.type) || 'reason' in verdicts[i]!, `${p.name}: ${JSON.stringify(verdicts[i])}`);
    });
    // The same verdicts as the npm ffmpeg gives on one machine.
    const local = await Promise.all(files.map(([f, t]) => decodeImage(f!, t as AssetContentType)));
    assert.deepEqual(
      verdicts.map((v) => 'reason' in v),
      local.map((v) => 'reason' in v),
    );
  });
});
