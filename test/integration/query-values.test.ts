/**
 * Query values at the edges, on the local stack: every GET route's parameters. A value that is malformed, or a range
 * that is inverted, is 422 invalid_params naming the parameter; a well-formed value merely outside the data (a time
 * before 1970 or far ahead, a cursor older than the range) is an empty page. Never a 500. Each case of the first
 * table answered 500 before the fix (issue 25, finding 6).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { errorCode, useStack } from '../support/stack.ts';

const t = useStack();
let key: string;
let orderId: string;

async function setUp() {
  ({ apiKey: key } = await t.user({ balance: 1000 }));
  const res = await t.api('POST', '/videos', { key, body: { topic: 'Tea', duration_seconds: 10, director_mode: true } });
  assert.equal(res.status, 201, res.text);
  orderId = res.body.id;
}

/** What a query must answer: 422 naming a parameter, or a page (`ids`: the order ids it holds). */
type Expect = { invalid: string } | { ids: () => string[] };
const empty: Expect = { ids: () => [] };
const one: Expect = { ids: () => [orderId] };

async function check(path: string, expect: Expect) {
  const res = await t.api('GET', path, { key });
  if ('invalid' in expect) {
    assert.equal(res.status, 422, `${path}: ${res.status} ${res.text.slice(0, 100)}`);
    assert.equal(errorCode(res), 'invalid_params');
    assert.match(res.body.error.message, new RegExp(`^${expect.invalid}: `), path);
  } else {
    assert.equal(res.status, 200, `${path}: ${res.status} ${res.text.slice(0, 100)}`);
    assert.deepEqual(
      res.body.data.map((o: { id: string }) => o.id),
      expect.ids(),
      path,
    );
    assert.equal(res.body.has_more, false, path);
  }
}

/** Every case is asked; the failures are reported together, each by its name. */
async function checkAll(cases: [string, string, Expect][]) {
  const failures: string[] = [];
  for (const [name, path, expect] of cases) await check(path, expect).catch((err: Error) => failures.push(`${name}: ${err.message.split('\n')[0]}`));
  assert.deepEqual(failures, []);
}

describe('query values at the edges', () => {
  before(setUp);

  it('answers the values that were 500 with 422 naming the parameter or an empty page', async () => {
    const future = '9999-12-31T23:59:59Z';
    const cases: [string, string, Expect][] = [
      ['a lower bound in year 0', '/videos?created_gte=0000-01-01T00:00:00Z', one],
      ['an upper bound before 1970', '/videos?created_lt=1969-12-31T23:59:59Z', empty],
      ['an upper bound in year 0', '/videos?created_lt=0000-01-01T00:00:00Z', empty],
      ['both bounds before 1970', '/videos?created_gte=1900-01-01T00:00:00Z&created_lt=1969-01-01T00:00:00Z', empty],
      ['an offset that crosses into 1969', `/videos?created_lt=${encodeURIComponent('1970-01-01T00:30:00+01:00')}`, empty],
      ['inverted bounds', `/videos?created_gte=2026-06-01T00:00:00Z&created_lt=2026-01-01T00:00:00Z`, { invalid: 'created_gte' }],
      ['inverted bounds before 1970', '/videos?created_gte=1969-06-01T00:00:00Z&created_lt=1969-01-01T00:00:00Z', { invalid: 'created_gte' }],
      ['a cursor older than the lower bound', `/videos?created_gte=${future}&starting_after=vid_01kbg000000000000000000000`, empty],
      ['a cursor older than a recent lower bound', '/videos?created_gte=2026-01-01T00:00:00Z&starting_after=vid_01jgz000000000000000000000', empty],
      [
        'a status filter with a cursor older than the lower bound',
        `/videos?status=queued&created_gte=${future}&starting_after=vid_01kbg000000000000000000000`,
        empty,
      ],
    ];
    await checkAll(cases);
  });

  it('keeps the other edges exact: equal bounds, far ahead, offsets, the cursor, and malformed values', async () => {
    const cases: [string, string, Expect][] = [
      ['equal bounds: an empty range', '/videos?created_gte=2026-01-01T00:00:00Z&created_lt=2026-01-01T00:00:00Z', empty],
      ['a lower bound far ahead', '/videos?created_gte=9999-12-31T23:59:59.999Z', empty],
      ['an upper bound far ahead', '/videos?created_lt=9999-12-31T23:59:59.999Z', one],
      ['the epoch itself as the upper bound', '/videos?created_lt=1970-01-01T00:00:00Z', empty],
      ['a cursor of the newest order', `/videos?starting_after=${'vid_7zzzzzzzzzzzzzzzzzzzzzzzzz'}`, one],
      ['a limit in hexadecimal', '/videos?limit=0x10', { invalid: 'limit' }],
      ['a limit with an exponent', '/videos?limit=1e1', { invalid: 'limit' }],
      ['a limit with spaces', '/videos?limit=%205', { invalid: 'limit' }],
      ['a limit with a plus sign', '/videos?limit=%2B5', { invalid: 'limit' }],
      ['a time without seconds', '/videos?created_gte=2026-01-01T00:00Z', { invalid: 'created_gte' }],
      ['a date of no calendar', '/videos?created_lt=2026-02-30T00:00:00Z', { invalid: 'created_lt' }],
      ['a repeated parameter', '/videos?status=queued&status=done', { invalid: 'status' }],
      ['a cursor of another kind', '/videos?starting_after=txn_01kbg000000000000000000000', { invalid: 'starting_after' }],
    ];
    await checkAll(cases);
  });

  it('checks the ledger listing alike', async () => {
    await checkAll([
      ['a limit in hexadecimal', '/balance/transactions?limit=0x10', { invalid: 'limit' }],
      ['a limit over 100', '/balance/transactions?limit=101', { invalid: 'limit' }],
      ['a cursor of another kind', '/balance/transactions?starting_after=vid_01kbg000000000000000000000', { invalid: 'starting_after' }],
      ['a parameter it does not take', '/balance/transactions?created_gte=2026-01-01T00:00:00Z', { invalid: 'created_gte' }],
      ['a cursor before every entry', '/balance/transactions?starting_after=txn_00000000000000000000000000', empty],
    ]);
    // A well-formed cursor past every entry: the whole ledger.
    const newest = await t.api('GET', '/balance/transactions?starting_after=txn_7zzzzzzzzzzzzzzzzzzzzzzzzz', { key });
    assert.equal(newest.status, 200, newest.text);
    assert.equal(newest.body.data.length, 2);
  });
});
