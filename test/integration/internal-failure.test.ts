import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { errorCode, useStack } from '../support/stack.ts';

// The API alone: executions are held, so no video renders in the background.
const t = useStack({ LOCAL_SFN_HOLD: '1' });

describe('an unexpected failure', () => {
  it('answers 500 internal_error in the envelope with no internals', async () => {
    const { apiKey } = await t.user({ balance: 100 });
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).status, 200);
    // A real failure: the table disappears under the running service.
    const { aws } = await import('../../functions/adapters/aws.ts');
    await aws().ddb.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME! }));
    const res = await t.api('GET', '/balance', { key: apiKey });
    assert.equal(res.status, 500);
    assert.equal(errorCode(res), 'internal_error');
    assert.doesNotMatch(res.text, /ResourceNotFound|video-service|Exception|at \w+ \(/);
  });
});
