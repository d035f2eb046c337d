import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorCode, useStack } from '../support/stack.ts';

const t = useStack({ MAINTENANCE_MODE: 'on', LOCAL_SFN_HOLD: '1' });

describe('maintenance switch', () => {
  it('answers every route with 503 service_unavailable and Retry-After', async () => {
    const { apiKey } = await t.user({ balance: 100 });
    for (const [method, path] of [
      ['GET', '/balance'],
      ['POST', '/videos:quick'],
      ['GET', '/videos/vid_01m837a36rwd3vvm20wnzfsswb'],
    ] as const) {
      const res = await t.api(method, path, { key: apiKey, ...(method === 'POST' ? { body: { prompt: 'tea' } } : {}) });
      assert.equal(res.status, 503);
      assert.equal(errorCode(res), 'service_unavailable');
      assert.ok(Number(res.headers.get('retry-after')) > 0);
    }
  });
});
