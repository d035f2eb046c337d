/**
 * The JavaScript client as a package: `npm pack` makes a tarball of built JavaScript (ESM, and CommonJS for require)
 * and type declarations (no TypeScript sources; each source map carries its sources), marked private until released;
 * installed into a new project outside this one (no network: it has no dependencies), it is imported by its name and
 * by its types, and required, orders a video on the local stack, verifies a webhook, and its command line runs.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { newWebhookSecret, signatureHeaders } from '../../functions/core/webhook-signature.ts';
import { ROOT } from '../../lib/paths.ts';
import { useStack } from '../support/stack.ts';

const t = useStack({}, { viaPrism: true });
/** A 1x1 PNG, as an asset's bytes. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
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
    for (const f of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/index.js.map',
      'dist/cli.js',
      'bin/video-client.js',
      'dist/schema.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
      'package.json',
      'README.md',
    ])
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
    // Each source map carries the sources it names (the package has no .ts to point at), as they are in src/.
    const maps = files.filter((f) => f.endsWith('.js.map'));
    assert.ok(maps.length >= 4, String(maps));
    for (const f of maps) {
      const map = JSON.parse(readFileSync(join(installed, f), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      assert.equal(map.sourcesContent?.length, map.sources.length, `${f} carries its sources`);
      for (const [i, source] of map.sources.entries())
        assert.equal(
          map.sourcesContent![i],
          readFileSync(join(ROOT, 'clients', 'js', 'src', source.replace(/^(\.\.\/)+src\//, '')), 'utf8'),
          `${f}: ${source}`,
        );
    }
    // The module (ESM and CommonJS) imports nothing of Node's: bundlers for browsers and edge runtimes take it.
    for (const f of ['dist/index.js', 'dist/cjs/index.js']) assert.doesNotMatch(readFileSync(join(installed, f), 'utf8'), /["']node:|\brequire\(/, f);

    const { apiKey } = await t.user({ balance: 500 });
    writeFileSync(
      join(project, 'order.mjs'),
      [
        "import { VideoClient, isApiError } from '@video-service/client';",
        'const client = new VideoClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });',
        "const order = await client.createVideo({ topic: 'Packed tea', director_mode: true });",
        'const read = await client.getVideo(order.id);',
        "const refused = await client.getVideo('vid_01m8000000000000000000000a').catch((e) => isApiError(e, 'not_found'));",
        // Issue 30's routes from the packed build: an asset's upload, read, list and delete; the balance alert; metadata.
        `const png = Buffer.from('${PNG_1X1}', 'base64');`,
        'const asset = await client.uploadAsset(new Uint8Array(png));',
        'const got = await client.getAsset(asset.id);',
        'const listed = [];',
        'for await (const a of client.listAssets()) listed.push(a.id);',
        'await client.deleteAsset(asset.id);',
        'const gone = await client.getAsset(asset.id).catch((e) => isApiError(e, "not_found"));',
        'const alert = (await client.setBalanceAlert(100)).low_balance_alert;',
        "const tagged = await client.createVideo({ topic: 'Tagged tea', director_mode: true, metadata: { crm: 'pkg-1' } });",
        'const found = [];',
        "for await (const o of client.listVideos({ metadata: { crm: 'pkg-1' } })) found.push(o.id);",
        'const { requestId } = await client.getBalance().withResponse();',
        'console.log(JSON.stringify({ id: read.id, cost: order.cost, refused, asset: [got.id === asset.id, listed.includes(asset.id), gone], alert, tagged: found.length === 1 && found[0] === tagged.id, requestId }));',
      ].join('\n'),
    );
    // Required from CommonJS: the same client, and its webhook helper on a delivery signed as Standard Webhooks signs.
    const secret = newWebhookSecret();
    const ping = JSON.stringify({ type: 'webhook.test', webhook_id: 'wh_1', created_at: new Date().toISOString(), livemode: true });
    const signed = signatureHeaders(ping, [secret], { id: 'webhook.test:1', timestamp: Math.floor(Date.now() / 1000) });
    writeFileSync(
      join(project, 'required.cjs'),
      [
        "const { VideoClient, unwrap, USER_AGENT } = require('@video-service/client');",
        'const [base, key, secret, body, headers] = process.argv.slice(2);',
        '(async () => {',
        '  const event = await unwrap(body, JSON.parse(headers), secret);',
        '  const { balance } = await new VideoClient({ baseUrl: base, apiKey: key }).getBalance();',
        '  console.log(JSON.stringify({ type: event.type, known: event.known, balance, ua: USER_AGENT }));',
        '})();',
      ].join('\n'),
    );
    const required = JSON.parse(
      (await run(process.execPath, ['required.cjs', t.baseUrl, apiKey, secret, ping, JSON.stringify(signed)], { cwd: project, encoding: 'utf8' })).stdout,
    );
    assert.deepEqual(required, { type: 'webhook.test', known: true, balance: 500, ua: `video-service-client-js/${manifest.version}` });
    const out = JSON.parse((await run(process.execPath, ['order.mjs', t.baseUrl, apiKey], { cwd: project, encoding: 'utf8' })).stdout);
    assert.match(out.id, /^vid_/);
    assert.deepEqual([out.cost, out.refused], [100, true]);
    assert.deepEqual([out.asset, out.alert, out.tagged], [[true, true, true], { below: 100, sent: false }, true]);
    assert.match(out.requestId, /./);
    // Its command line, linked by the install.
    const bin = join(project, 'node_modules', '.bin', 'video-client');
    assert.ok(existsSync(bin));
    const balance = await run(bin, ['balance'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, VIDEO_SERVICE_KEY: apiKey, VIDEO_SERVICE_URL: t.baseUrl },
    });
    // Two director-mode orders of 100 each.
    assert.match(balance.stdout, /^300 doubloons/);
  });
});
