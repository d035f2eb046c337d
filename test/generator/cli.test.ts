import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../../local/stack.ts';
import { probe } from '../support/media.ts';

const dir = mkdtempSync(join(tmpdir(), 'render-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const render = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'bin/render.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

describe('npm run render', () => {
  it('plans, writes and renders one video, printing progress and where the files are', () => {
    const out = join(dir, 'tea.mp4');
    const res = render('Calm 12 seconds video about green tea', '--out', out, '--trial');
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /rendering\s+\d+%/);
    assert.match(res.stdout, new RegExp(`video: ${out}`));
    assert.ok(Math.abs(probe(out).duration - 12) <= 0.5);
    assert.ok(existsSync(join(dir, 'tea.cover.jpg')));
    const pack = JSON.parse(readFileSync(join(dir, 'tea.pack.json'), 'utf8'));
    assert.deepEqual(Object.keys(pack), ['title', 'description', 'hashtags']);
  });

  it('answers an empty prompt with a clear validation error', () => {
    const res = render('   ');
    assert.equal(res.status, 1);
    assert.match(res.stderr, /prompt: must not be empty/);
  });
});
