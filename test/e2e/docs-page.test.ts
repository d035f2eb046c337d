/**
 * The reference page as a reader sees it: /v1/docs opened in headless Chromium (Debian's, which .ci/run installs)
 * renders one entry per route of the route table and per webhook event from /openapi.json. A full-page screenshot is kept in
 * reports/tmp/docs-page.png. Where no Chromium can be installed, the test is skipped and says why.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { ROUTES } from '../../functions/http/routes.ts';
import { ROOT } from '../../lib/paths.ts';
import { useStack } from '../support/stack.ts';

const BROWSER = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const t = useStack();

describe('the docs page', () => {
  const missing = existsSync(BROWSER) ? false : `no Chromium at ${BROWSER} (apt-get install chromium)`;
  if (missing) console.log(`# skipped the docs page test: ${missing}`);

  it('renders every route of the contract in headless Chromium', { skip: missing }, async () => {
    const browser = await chromium.launch({
      executablePath: BROWSER,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const outside: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(t.baseUrl.replace(/\/v1$/, ''))) outside.push(r.url());
      });
      await page.goto(`${t.baseUrl}/docs`);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      const operations = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')));
      // Every route, and every webhook event the document describes (the order events, balance.low, webhook.test).
      const events = Object.keys(((await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as { webhooks: object }).webhooks);
      assert.ok(events.includes('video.done') && events.includes('balance.low'), events.join());
      assert.deepEqual(operations.sort(), [...ROUTES.map((r) => r.path), ...events].sort());
      assert.match(await page.title(), /API v1/);
      assert.deepEqual(outside, [], 'nothing is loaded from outside the service');
      const dir = join(ROOT, 'reports', 'tmp');
      mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: join(dir, 'docs-page.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
