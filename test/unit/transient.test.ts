/**
 * Which cancelled transactions pass by themselves. DynamoDB Local neither throttles nor lets a conflict outlast the
 * retries on cue, so the exceptions are made here as the SDK makes them from DynamoDB's answer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { isTransient } from '../../functions/adapters/transient.ts';

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled [${codes}]`,
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('a cancelled transaction', () => {
  it('is transient when every item that failed was throttled or held by another transaction', () => {
    const answers = Object.fromEntries(
      [
        ['None', 'ThrottlingError'],
        ['ProvisionedThroughputExceeded', 'None'],
        ['TransactionConflict', 'None', 'None'],
        ['ThrottlingError', 'TransactionConflict'],
        ['None', 'ValidationError'],
        ['ThrottlingError', 'ValidationError'],
        ['ConditionalCheckFailed', 'None'],
        ['ItemCollectionSizeLimitExceeded', 'None'],
        ['None', 'None'],
      ].map((codes) => [codes.join(' '), isTransient(cancelled(...codes))]),
    );
    assert.deepEqual(answers, {
      'None ThrottlingError': true,
      'ProvisionedThroughputExceeded None': true,
      'TransactionConflict None None': true,
      'ThrottlingError TransactionConflict': true,
      'None ValidationError': false,
      'ThrottlingError ValidationError': false,
      'ConditionalCheckFailed None': false,
      'ItemCollectionSizeLimitExceeded None': false,
      'None None': false,
    });
  });
});
