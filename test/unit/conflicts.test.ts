/**
 * Transaction conflicts that outlast the retries pass by themselves. Forced here on a real DynamoDB client whose every
 * TransactWriteItems is cancelled for TransactionConflict (a middleware answers before a request leaves; DynamoDB
 * Local cannot be made to conflict on cue): the shared retry and an order's transition end in Contended, never in
 * the cancellation itself, and Contended is transient: the API answers 503, and a step throws ServiceUnavailable, the
 * error every Task of the state machines retries, instead of a failure whose Catch refunds the order (for publish's
 * transition: after its render finished).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CONFLICT_ATTEMPTS, transactPastConflicts, writePastConflicts } from '../../functions/adapters/dynamo.ts';
import { Orders } from '../../functions/adapters/orders.ts';
import { isTransient, TRANSIENT_ERROR_NAME } from '../../functions/adapters/transient.ts';
import type { Order } from '../../functions/core/orders.ts';
import { errorResponse } from '../../functions/http/errors.ts';
import { stepHandler } from '../../functions/steps/step.ts';
import { lambdaContext } from '../../local/gateway.ts';

/** The retries' injected sleep: records each pause instead of waiting it. */
function noWait() {
  const pauses: number[] = [];
  const sleep = async (ms: number) => {
    pauses.push(ms);
  };
  return { pauses, sleep };
}

/** A client on a closed port whose transactions all meet another transaction; `tries` counts them. */
function conflictingClient() {
  const client = new DynamoDBClient({ region: 'eu-central-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'k', secretAccessKey: 's' } });
  const counter = { tries: 0 };
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { TransactItems?: unknown[] };
      if (!input.TransactItems) return next(args);
      counter.tries++;
      throw new TransactionCanceledException({
        message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]',
        $metadata: { httpStatusCode: 400 },
        CancellationReasons: input.TransactItems.map((_, i) => ({ Code: i === 0 ? 'TransactionConflict' : 'None' })),
      });
    },
    { step: 'initialize', name: 'alwaysConflicting' },
  );
  return { ddb: DynamoDBDocumentClient.from(client), counter };
}

const put = (pk: string) => ({ Put: { TableName: 't', Item: { PK: pk, SK: 'X' } } });

describe('a transaction that keeps meeting others', () => {
  it(`ends in Contended after ${CONFLICT_ATTEMPTS} tries, transient: 503 from the API, ServiceUnavailable from a step`, async () => {
    const { ddb, counter } = conflictingClient();
    const { pauses, sleep } = noWait();
    const err = await transactPastConflicts(ddb, [['a', put('A')] as const, ['b', put('B')] as const], sleep).then(
      () => assert.fail('committed'),
      (e: Error) => e,
    );
    assert.deepEqual([err.name, counter.tries, isTransient(err)], ['Contended', CONFLICT_ATTEMPTS, true]);
    // A pause (jittered) before each try after the first.
    assert.equal(pauses.length, CONFLICT_ATTEMPTS - 1);
    assert.equal(errorResponse(err, 'req').statusCode, 503);
    const step = stepHandler('publish-order', () => transactPastConflicts(ddb, [['a', put('A')] as const], sleep));
    await assert.rejects(step({ orderId: 'vid_x' }, lambdaContext('publish-order')), { name: TRANSIENT_ERROR_NAME });
  });

  it("ends an order's transition (publish's move to done) in Contended, not in a failure that refunds it", async () => {
    const { ddb, counter } = conflictingClient();
    const order = {
      id: 'vid_x',
      userId: 'u',
      status: 'running',
      kind: 'explicit',
      channel: 'api',
      params: { duration_seconds: 10 },
      charge: { cost: 100 },
      rendered: true,
    } as unknown as Order;
    const err = await new Orders(ddb, 't', noWait().sleep).transition({ order, to: 'done', now: new Date() }).then(
      () => assert.fail('committed'),
      (e: Error) => e,
    );
    assert.deepEqual([err.name, counter.tries, isTransient(err)], ['Contended', CONFLICT_ATTEMPTS, true]);
  });

  it('is retried by every Task of the order workflow that retries a transient failure', () => {
    const machine = JSON.parse(readFileSync(new URL('../../statemachines/order.asl.json', import.meta.url), 'utf8'));
    const tasks = Object.entries(machine.States as Record<string, { Type: string; Retry?: { ErrorEquals: string[] }[] }>).filter(([, s]) => s.Type === 'Task');
    const without = tasks.filter(([, s]) => !s.Retry?.some((r) => r.ErrorEquals.includes(TRANSIENT_ERROR_NAME))).map(([name]) => name);
    assert.deepEqual(without, []);
  });
});

describe('a single write that meets a transaction holding its item', () => {
  it('is transient (TransactionConflictException)', () => {
    const err = Object.assign(new Error('Transaction is ongoing for the item'), { name: 'TransactionConflictException', $metadata: { httpStatusCode: 400 } });
    assert.equal(isTransient(err), true);
  });

  // A held item cannot be made to meet a single write on demand with DynamoDB Local: the error is made here.
  it('is tried again while the item stays held, then ends in Contended; any other error at once', async () => {
    const held = () => Object.assign(new Error('Transaction is ongoing for the item'), { name: 'TransactionConflictException' });
    const { sleep } = noWait();
    let tries = 0;
    assert.equal(await writePastConflicts('the counter', async () => (++tries < 3 ? Promise.reject(held()) : 'written'), sleep), 'written');
    assert.equal(tries, 3);
    tries = 0;
    const err = await writePastConflicts(
      'the counter',
      async () => {
        tries++;
        throw held();
      },
      sleep,
    ).then(
      () => assert.fail('written'),
      (e: Error) => e,
    );
    assert.deepEqual([err.name, tries, isTransient(err)], ['Contended', CONFLICT_ATTEMPTS, true]);
    await assert.rejects(
      writePastConflicts('the counter', async () => Promise.reject(Object.assign(new Error('bad'), { name: 'ValidationException' })), sleep),
      /bad/,
    );
  });
});
