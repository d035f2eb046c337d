/**
 * The JavaScript client as a package: `npm pack` makes a tarball of built JavaScript and type declarations (no
 * TypeScript sources), marked private until released; installed into a new project outside this one (no network: it
 * has no dependencies), it is imported by its name and by its types, orders a video on the local stack, and its
 * command line runs.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../../lib/paths.ts';
import { useStack } from '../support/stack.ts';

const t = useStack();
const dir = mkdtempSync(join(tmpdir(), 'video-client-package-'));
after(() => rmSync(dir, { recursive: true, force: true }));
// The stack runs in this process: a child that calls it must not block this process's event loop.
const run = promisify(execFile);
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } });

describe('the JavaScript client package', () => {
  it('packs built JavaScript with types, installs into a new project, and orders a video from there', async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'clients', 'js', 'package.json'), 'utf8'));
    assert.equal(manifest.private, true, 'private until released');
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], join(ROOT, 'clients', 'js')).replace(/^[^[]*/, ''))[0];
    const files = (packed.files as { path: string }[]).map((f) => f.path).sort();
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'bin/video-client.js', 'dist/schema.d.ts', 'package.json', 'README.md'])
      assert.ok(files.includes(f), f);
    assert.deepEqual(
      files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
      [],
      'no TypeScript sources',
    );

    const project = join(dir, 'project');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    npm(['install', '--offline', join(dir, packed.filename)], project);
    const installed = join(project, 'node_modules', '@video-service', 'client');
    assert.deepEqual(readdirSync(installed).sort(), ['README.md', 'bin', 'dist', 'package.json']);
    assert.match(readFileSync(join(installed, 'dist', 'index.d.ts'), 'utf8'), /export declare class VideoClient/);

    const { apiKey } = await t.user({ balance: 500 });
    writeFileSync(
      join(project, 'order.mjs'),
      [
        "import { VideoClient, isApiError } from '@video-service/client';",
        'const client = new VideoClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });',
        "const order = await client.createVideo({ topic: 'Packed tea', director_mode: true });",
        'const read = await client.getVideo(order.id);',
        "const refused = await client.getVideo('vid_01m8000000000000000000000a').catch((e) => isApiError(e, 'not_found'));",
        'console.log(JSON.stringify({ id: read.id, cost: order.cost, refused }));',
      ].join('\n'),
    );
    const out = JSON.parse((await run(process.execPath, ['order.mjs', t.baseUrl, apiKey], { cwd: project, encoding: 'utf8' })).stdout);
    assert.match(out.id, /^vid_/);
    assert.deepEqual([out.cost, out.refused], [100, true]);
    // Its command line, linked by the install.
    const bin = join(project, 'node_modules', '.bin', 'video-client');
    assert.ok(existsSync(bin));
    const balance = await run(bin, ['balance'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, VIDEO_SERVICE_KEY: apiKey, VIDEO_SERVICE_URL: t.baseUrl },
    });
    assert.match(balance.stdout, /400/);
  });
});
