/** The download route's rule: a valid link to a file still kept leads to it; past retention, 404 without asking the store. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ulid } from 'ulid';
import { downloadLocation, type DownloadPorts } from '../../functions/core/downloads.ts';
import { AppError } from '../../functions/core/errors.ts';
import { ORDER_ID_RE, orderCreatedAt } from '../../functions/core/ids.ts';
import { FILE_RETENTION_DAYS, type OrderFile } from '../../functions/core/orders.ts';

const DAY = 86_400_000;
const now = new Date('2026-11-23T10:00:00Z');
const orderAt = (ms: number) => `vid_${ulid(ms).toLowerCase()}`;

/** Ports whose store holds `stored` and counts what it was asked. */
function ports(stored: string[]) {
  const asked: string[] = [];
  const p: DownloadPorts = {
    verify: async (_id, name) => {
      if (name !== 'video.mp4') throw new AppError('forbidden', 'The link signature does not match');
      return 'video';
    },
    files: {
      exists: async (id: string, file: OrderFile) => {
        asked.push(`exists ${id}`);
        return stored.includes(`${id}/${file}`);
      },
      presign: async (id: string, file: OrderFile) => {
        asked.push(`presign ${id}`);
        return `https://s3.example/${id}/${file}`;
      },
    },
    retentionDays: FILE_RETENTION_DAYS,
  };
  return { p, asked };
}
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (err) => (err instanceof AppError ? err.code : Promise.reject(err)),
  );

describe('downloads', () => {
  it('reads the creation time from the order id', () => {
    const id = orderAt(now.getTime() - 3 * DAY);
    assert.match(id, ORDER_ID_RE);
    assert.equal(orderCreatedAt(id), now.getTime() - 3 * DAY);
    // A ULID's time has 48 bits: a first character past 7 is no id.
    assert.doesNotMatch(`vid_8${id.slice(5)}`, ORDER_ID_RE);
  });

  it('leads a valid link of a kept file to the store, and answers 404 for a missing one', async () => {
    const young = orderAt(now.getTime() - (FILE_RETENTION_DAYS - 1) * DAY);
    const { p, asked } = ports([`${young}/video`]);
    assert.equal(await downloadLocation(p, young, 'video.mp4', '1', 'sig', now), `https://s3.example/${young}/video`);
    const missing = orderAt(now.getTime() - DAY);
    assert.equal(await codeOf(downloadLocation(p, missing, 'video.mp4', '1', 'sig', now)), 'not_found');
    assert.deepEqual(asked, [`exists ${young}`, `presign ${young}`, `exists ${missing}`]);
  });

  it('answers 404 for an order older than the retention without asking the store, even if its file is still there', async () => {
    const old = orderAt(now.getTime() - FILE_RETENTION_DAYS * DAY - 1000);
    const { p, asked } = ports([`${old}/video`]);
    const err = await downloadLocation(p, old, 'video.mp4', '1', 'sig', now).catch((e: AppError) => e);
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'not_found');
    assert.match(err.message, /kept 30 days/);
    assert.deepEqual(asked, []);
    // The last moment of the retention still serves.
    const { p: p2 } = ports([`${old}/video`]);
    assert.equal(await codeOf(downloadLocation(p2, old, 'video.mp4', '1', 'sig', new Date(now.getTime() - 1000))), 'ok');
  });

  it('checks the link first: a tampered link is 403 whatever the order age', async () => {
    const old = orderAt(now.getTime() - 40 * DAY);
    const { p, asked } = ports([]);
    assert.equal(await codeOf(downloadLocation(p, old, 'cover.jpg', '1', 'sig', now)), 'forbidden');
    assert.deepEqual(asked, []);
  });
});
