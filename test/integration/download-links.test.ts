/**
 * GET /files/{id}/{file} on the local stack, with links signed by the stack's own link key: `expires` is accepted in
 * one spelling only (decimal digits, no sign, space, exponent, fraction or leading zero), and a link that expires more
 * than the link lifetime (7 days) plus a 5-minute clock allowance ahead is refused as a tampered one, 403 forbidden.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { newOrderId } from '../../functions/core/ids.ts';
import { errorCode, useStack } from '../support/stack.ts';

const t = useStack();
const WEEK = 7 * 24 * 3600;

/** The signature of a link by the scheme of functions/core/links.ts, made over `expires` exactly as given. */
const sign = (orderId: string, expires: string) =>
  createHmac('sha256', t.stack.env.LINK_SIGNING_KEY!).update(`${orderId}/video.mp4/${expires}`).digest('base64url');

/** The route's answer to a link: its status, and the error's code and message when it is an error. */
async function download(orderId: string, expires: string, sig: string): Promise<[number, string?, string?]> {
  const res = await fetch(`${t.baseUrl}/files/${orderId}/video.mp4?expires=${encodeURIComponent(expires)}&sig=${sig}`, { redirect: 'manual' });
  if (res.status < 400) {
    await res.body?.cancel();
    return [res.status];
  }
  const text = await res.text();
  const body = JSON.parse(text);
  return [res.status, errorCode({ status: res.status, headers: res.headers, body, text }), body.error.message];
}

/** A young order whose mp4 is stored, so that a link the route accepts is answered 302. */
async function storedOrder(): Promise<string> {
  const { aws } = await import('../../functions/adapters/aws.ts');
  const id = newOrderId();
  await (await aws().s3()).send(new PutObjectCommand({ Bucket: t.stack.env.BUCKET_NAME, Key: `orders/${id}/video.mp4`, Body: 'mp4' }));
  return id;
}

describe('download links', () => {
  it('accept `expires` as decimal digits only: another spelling of the same moment is refused, whoever signed it', async () => {
    const id = await storedOrder();
    const at = Math.floor(Date.now() / 1000) + 3600;
    const canonical = String(at);
    assert.deepEqual(await download(id, canonical, sign(id, canonical)), [302], 'the link as the service issues it');
    // Each names the same moment as `at` (Number() reads them so); the signature is over the decimal form, as issued,
    // or over the spelling itself.
    const spellings = [`0x${at.toString(16)}`, `${at / 100}e2`, ` ${at}`, `${at} `, `+${at}`, `0${at}`, `${at}.0`, `0o${at.toString(8)}`];
    const answers: Record<string, unknown> = {};
    for (const expires of spellings) {
      assert.equal(Number(expires), at, expires);
      for (const [by, sig] of [
        ['decimal', sign(id, canonical)],
        ['as given', sign(id, expires)],
      ]) {
        answers[`${JSON.stringify(expires)} signed ${by}`] = (await download(id, expires, sig!)).slice(0, 2).join(' ');
      }
    }
    assert.deepEqual(answers, Object.fromEntries(Object.keys(answers).map((k) => [k, '403 forbidden'])));
  });

  it('refuse a link that expires more than 7 days (and a 5-minute clock allowance) ahead, as a tampered one', async () => {
    const id = await storedOrder();
    const now = Math.floor(Date.now() / 1000);
    const answer = (expires: number) => download(id, String(expires), sign(id, String(expires)));
    assert.deepEqual(await answer(now + WEEK), [302], 'a link issued now');
    assert.deepEqual(await answer(now + WEEK + 60), [302], 'one issued by a clock a minute ahead');
    // The answer to a bad signature, code and message.
    const tampered = await download(id, String(now + WEEK), sign(id, String(now)));
    assert.deepEqual(tampered.slice(0, 2), [403, 'forbidden']);
    for (const expires of [now + WEEK + 3600, now + 365 * 86_400, 999_999_999_999]) {
      assert.deepEqual(await answer(expires), tampered, `${expires - now} s ahead`);
    }
  });
});
