/**
 * The Python client typed end to end (issue 40), as two type checkers see it: the package (video_client) and the
 * sample integration (clients/python/examples) are clean under `mypy --strict` and pyright in strict mode, and the
 * checkers bite: in a shop's code, a misspelled async method, a misspelled request key (`durration_seconds`), a
 * misspelled review action (`aprove`), a misspelled list query, an unknown status, error code or event type are errors
 * for both, on exactly those lines, while the same code spelled right is clean. Each checker is skipped, with the reason printed, where it
 * is not installed (CI installs mypy with apt; pyright comes with the project's dev dependencies).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../../lib/paths.ts';

const run = promisify(execFile);
const PY = join(ROOT, 'clients', 'python');
const dir = mkdtempSync(join(tmpdir(), 'python-typing-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The first mypy found: Debian's (/usr/bin/mypy), or one on PATH. */
function findMypy(): string | undefined {
  const candidates = ['/usr/bin/mypy', ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'mypy'))];
  return candidates.find((c) => existsSync(c));
}
const MYPY = findMypy();
const PYRIGHT = join(ROOT, 'node_modules', '.bin', 'pyright');

function skipUnless(t: TestContext, found: string | boolean | undefined, reason: string): boolean {
  if (found) return false;
  console.log(`# skipped: ${reason}`);
  t.skip(reason);
  return true;
}

/** What a shop writes: each line marked BITE is a mistake both checkers must refuse; the rest must be clean. */
const SHOP = `from video_client import ApiError, OrderEvent, VideoClient, WebhookEvent
from video_client.aio import AsyncVideoClient


async def follow(client: AsyncVideoClient) -> None:
    await client.get_vidoe("vid_x")  # BITE
    async for asset in client.list_assets(limit=5):
        print(asset["id"])


def order(client: VideoClient) -> None:
    client.create_video({"topic": "Tea", "durration_seconds": 5})  # BITE
    client.review("vid_x", {"action": "aprove"})  # BITE
    client.list_videos(stauts="done")  # BITE
    client.list_videos_page(status="finished")  # BITE
    for video in client.list_videos(status="error", metadata={"crm": "7"}):
        print(video["params"]["topic"], video.get("error", {}).get("code"))


def refused(err: ApiError) -> bool:
    return err.code == "insuficient_funds"  # BITE


def ready(event: WebhookEvent) -> bool:
    return isinstance(event, OrderEvent) and event.type == "video.finished"  # BITE
`;
const fixed = (text: string) =>
  text
    .replace('get_vidoe', 'get_video')
    .replace('durration_seconds', 'duration_seconds')
    .replace('aprove', 'approve')
    .replace('stauts', 'status')
    .replace('"finished"', '"done"')
    .replace('insuficient_funds', 'insufficient_funds')
    .replace('video.finished', 'video.done')
    .replaceAll('  # BITE', '');
const BITE_LINES = SHOP.split('\n').flatMap((line, i) => (line.endsWith('# BITE') ? [i + 1] : []));

writeFileSync(join(dir, 'shop_bad.py'), SHOP);
writeFileSync(join(dir, 'shop_good.py'), fixed(SHOP));
writeFileSync(join(dir, 'pyrightconfig.json'), JSON.stringify({ typeCheckingMode: 'strict', pythonVersion: '3.11', extraPaths: [PY], include: ['.'] }));

/** mypy --strict on some paths: its exit code and the error lines as `file:line`. */
async function mypy(cwd: string, paths: string[], env: Record<string, string> = {}) {
  const args = ['--strict', '--python-version', '3.11', '--cache-dir', join(dir, '.mypy_cache'), '--no-error-summary', ...paths];
  const out = await run(MYPY!, args, { cwd, env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, text: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, text: e.stdout }),
  );
  const errors = [...out.text.matchAll(/^(?:.*\/)?([^/:\n]+):(\d+): error: (.*)$/gm)].map((m) => ({ at: `${m[1]}:${m[2]}`, message: m[3] }));
  return { ...out, errors };
}

/** pyright (strict by the project's config) on a project directory: its error diagnostics as `file:line`. */
async function pyright(project: string) {
  const out = await run(PYRIGHT, ['-p', project, '--outputjson'], { cwd: project, maxBuffer: 1 << 26 }).then(
    (r) => r.stdout,
    (e: { stdout: string }) => e.stdout,
  );
  const report = JSON.parse(out) as {
    version: string;
    summary: { filesAnalyzed: number; errorCount: number };
    generalDiagnostics: { file: string; severity: string; message: string; range: { start: { line: number } } }[];
  };
  const errors = report.generalDiagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => ({ at: `${d.file.split('/').pop()}:${d.range.start.line + 1}`, message: d.message }));
  return { report, errors };
}

describe('the Python client under type checkers', () => {
  it('the package and the sample integration are clean under mypy --strict', async (t) => {
    if (skipUnless(t, MYPY, 'mypy is not installed (apt-get install mypy)')) return;
    const version = (await run(MYPY!, ['--version'])).stdout.trim();
    const result = await mypy(PY, ['video_client', 'examples']);
    console.log(`# ${version}: ${result.errors.length} errors in video_client and examples`);
    assert.deepEqual(result.errors, []);
    assert.equal(result.code, 0, result.text);
  });

  it('the package and the sample integration are clean under pyright strict', async (t) => {
    if (skipUnless(t, existsSync(PYRIGHT), 'pyright is not installed (node_modules/.bin/pyright)')) return;
    const { report, errors } = await pyright(PY);
    console.log(`# pyright ${report.version}: ${report.summary.errorCount} errors in ${report.summary.filesAnalyzed} files`);
    assert.deepEqual(errors, []);
    assert.ok(report.summary.filesAnalyzed >= 7, `${report.summary.filesAnalyzed} files: video_client and examples`);
  });

  it('mypy --strict refuses the misspelled method, request key, review action, query, status, error code and event type', async (t) => {
    if (skipUnless(t, MYPY, 'mypy is not installed (apt-get install mypy)')) return;
    const bad = await mypy(dir, ['shop_bad.py'], { MYPYPATH: PY });
    const good = await mypy(dir, ['shop_good.py'], { MYPYPATH: PY });
    console.log(bad.errors.map((e) => `# mypy ${e.at}: ${e.message}`).join('\n'));
    assert.deepEqual(good.errors, [], 'spelled right, the same code is clean');
    assert.deepEqual([...new Set(bad.errors.map((e) => e.at))].sort(), BITE_LINES.map((l) => `shop_bad.py:${l}`).sort());
  });

  it('pyright strict refuses the misspelled method, request key, review action, query, status, error code and event type', async (t) => {
    if (skipUnless(t, existsSync(PYRIGHT), 'pyright is not installed (node_modules/.bin/pyright)')) return;
    const { errors } = await pyright(dir);
    console.log(errors.map((e) => `# pyright ${e.at}: ${e.message.split('\n')[0]}`).join('\n'));
    assert.deepEqual(
      errors.filter((e) => e.at.startsWith('shop_good.py')),
      [],
      'spelled right, the same code is clean',
    );
    assert.deepEqual([...new Set(errors.map((e) => e.at))].sort(), BITE_LINES.map((l) => `shop_bad.py:${l}`).sort());
  });
});
