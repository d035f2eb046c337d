/**
 * The render image's ffmpeg, made on this machine the way the image makes it (lib/render-image/collect-ffmpeg.sh on
 * Debian's own ffmpeg package): the copy runs with nothing from the system, renders a whole order's video with the
 * generator's filter graphs, and a wrong release is refused, by the script and by the function's check. Debian 12 here
 * ships ffmpeg 5.1 where the image's Debian 13 ships 7.1; .ci/run installs the package.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkFfmpegRelease, FFMPEG } from '../../functions/generator/ffmpeg.ts';
import { ROOT } from '../../lib/paths.ts';
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
});
