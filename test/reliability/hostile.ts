/**
 * Hostile requests, generated from a seed: every route with wrong types, missing and unknown fields, huge and deeply
 * nested bodies, invalid UTF-8, wrong content types, bad ids, path tricks, and oversized or malformed keys and
 * Idempotency-Keys. None of them is a valid order, so none may be charged. Requests that fetch cannot send (header
 * injection, bytes a client library refuses) are written on a raw socket.
 */
export interface HostileRequest {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
  /** A well-formed query merely outside the data: an empty page (200) is its answer, not a 4xx. */
  emptyPage?: boolean;
}

/** A raw HTTP/1.1 request, written as is on a socket. */
export interface RawRequest {
  kind: string;
  bytes: Buffer;
}

/** mulberry32: a small seeded generator, so a failing request can be made again from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WRONG_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  '',
  ' ',
  'x'.repeat(5000),
  [],
  [1, 2],
  {},
  { a: 1 },
  '\u0000',
  'a\u0007b',
  '\ud800',
  '💥'.repeat(10),
  '<script>',
  "' OR 1=1 --",
];

/** Each body route with its valid body; every field gets every wrong value, and each is also dropped or joined. */
const BODIES: { method: string; path: (id: string) => string; valid: Record<string, unknown>; alsoValid?: unknown[] | undefined }[] = [
  { method: 'POST', path: () => '/videos:quick', valid: { prompt: 'A 10 second video about tea' } },
  {
    method: 'POST',
    path: () => '/videos',
    valid: {
      topic: 'Tea',
      director_mode: false,
      duration_seconds: 10,
      language: 'en',
      tone: 'calm',
      placement: { product: 'Cup' },
      cta: 'Buy',
      captions: true,
      music: 'stock',
      voice: 'standard',
      ai_visual: false,
      billing: 'auto',
    },
  },
  { method: 'POST', path: (id) => `/videos/${id}/review`, valid: { action: 'edit', text: 'New text' } },
  { method: 'POST', path: () => '/videos:quote', valid: { topic: 'Tea', duration_seconds: 10, music: 'song' } },
  { method: 'POST', path: () => '/videos:quote', valid: { prompt: 'A 10 second video about tea' } },
  { method: 'POST', path: () => '/webhooks', valid: { url: 'https://example.com/hook' } },
  // null removes the alert: a valid value, not a wrong one.
  { method: 'POST', path: () => '/balance/alerts', valid: { below: 500 }, alsoValid: [null] },
  { method: 'POST', path: () => '/assets', valid: { kind: 'image', content_type: 'image/png', size_bytes: 1000 } },
];

/** The wrong values of a body's field, less those its route takes (`alsoValid`). */
const wrongIn = (b: { alsoValid?: unknown[] | undefined }, value: unknown) => wrongFor(value).filter((w) => !(b.alsoValid ?? []).includes(w));

/** Values that are wrong for the field whatever its type: a valid value of the right type would be an order. */
function wrongFor(value: unknown): unknown[] {
  return WRONG_VALUES.filter((w) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this input is checked for.
    if (typeof value === 'string') return typeof w !== 'string' || w === '' || w === ' ' || (w as string).length > 1000 || /[\u0000-\u0008\ud800]/.test(w);
    return typeof w !== typeof value || (typeof value === 'number' && w !== value);
  });
}

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

const BAD_IDS = [
  '',
  ' ',
  '..',
  '..%2f..%2fbalance',
  '%2e%2e',
  'vid_',
  `vid_${'a'.repeat(26)}`,
  `vid_${'0'.repeat(5000)}`,
  'wh_01m837a36rwd3vvm20wnzfsswb',
  'VID_01M837A36RWD3VVM20WNZFSSWB',
  '%00',
  '%ff%fe',
  '%E2%80%AE',
  "1'%20OR%20'1'='1",
  '{id}',
  'null',
  '$(id)',
  '%252e%252e',
];

const PATH_TRICKS = [
  'GET /v1//balance',
  'GET /v1/balance/',
  'GET /V1/balance',
  'GET /v1/videos%3Aquick',
  'POST /v1/videos%3aquick',
  'POST /v1/videos%253Aquick',
  'POST /v1/videos:Quick',
  'POST /v1/videos:quick/',
  'GET /v2/balance',
  'GET /balance',
  'GET /',
  'GET /v1',
  'GET /v1/',
  'PUT /v1/videos',
  'PATCH /v1/balance',
  'DELETE /v1/balance',
  'DELETE /v1/webhooks',
  'POST /v1/balance',
  'GET /v1/video',
  'OPTIONS /v1/videos',
  'GET /v1/files/x',
  'GET /v1/files/x/y/z',
  'GET /v1/docs/%2e%2e%2fpackage.json',
  'GET /v1/docs/..%2f..%2fpackage.json',
  `GET /v1/${'x/'.repeat(800)}`,
];

const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/json; charset=latin1',
  'image/png',
  'application/json, text/plain',
  'json',
];

/** At least `count` requests (the systematic ones first, then random mixes), all with the given key unless a test of keys. */
export function hostileRequests(opts: {
  key: string;
  orderId: string;
  /** The Idempotency-Key the order `orderId` was created with. */
  orderIdempotencyKey: string;
  webhookId: string;
  seed: number;
  count: number;
}): HostileRequest[] {
  const random = seeded(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const json = { 'content-type': 'application/json', 'x-api-key': opts.key };
  const out: HostileRequest[] = [];
  const add = (kind: string, method: string, path: string, body?: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = json) =>
    out.push({ kind, method, path: `/v1${path}`, headers, ...(body !== undefined ? { body } : {}) });

  for (const b of BODIES) {
    const path = b.path(opts.orderId);
    for (const [field, value] of Object.entries(b.valid)) {
      for (const w of wrongIn(b, value)) add('wrong type', b.method, path, JSON.stringify({ ...b.valid, [field]: w }));
      if (typeof value === 'object' && value)
        for (const w of WRONG_VALUES.slice(0, 8)) add('wrong nested type', b.method, path, JSON.stringify({ ...b.valid, [field]: { ...value, product: w } }));
    }
    const required = Object.keys(b.valid)[0]!;
    const { [required]: _dropped, ...missing } = b.valid;
    add('missing field', b.method, path, JSON.stringify(missing));
    add('unknown field', b.method, path, JSON.stringify({ ...b.valid, __proto__x: 1, extra: true }));
    add('prototype pollution', b.method, path, `{"__proto__": {"admin": true}, ${JSON.stringify(b.valid).slice(1, -1)}}`);
    add('constructor field', b.method, path, JSON.stringify({ ...b.valid, constructor: { prototype: { x: 1 } } }));
    for (const top of ['null', '[]', '1', '"x"', 'true', '', '{', '{"a":', '{}}', '\u0000', '{"topic": "a", "topic": 1}'])
      add('malformed JSON', b.method, path, top);
    add('huge body', b.method, path, JSON.stringify({ ...b.valid, pad: 'x'.repeat(70 * 1024) }));
    add(
      'huge string',
      b.method,
      path,
      // Its string fields made huge (a body with none: all of its fields).
      JSON.stringify(
        Object.fromEntries(
          Object.entries(b.valid).map(([k, v]) => [
            k,
            typeof v === 'string' || !Object.values(b.valid).some((x) => typeof x === 'string') ? 'y'.repeat(60_000) : v,
          ]),
        ),
      ),
    );
    for (const depth of [100, 1000, 30_000]) add('deep nesting', b.method, path, `{"topic": ${nested(depth)}, "prompt": ${nested(depth)}}`);
    add('invalid UTF-8', b.method, path, Buffer.concat([Buffer.from('{"prompt": "'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('", "topic": "x"}')]));
    add('overlong UTF-8', b.method, path, Buffer.concat([Buffer.from('{"prompt": "'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]));
    add('UTF-16 body', b.method, path, Buffer.from(`\ufeff${JSON.stringify(b.valid)}`, 'utf16le'));
    for (const type of CONTENT_TYPES)
      add('wrong content type', b.method, path, type.startsWith('application/json') ? 'not json' : JSON.stringify({ ...b.valid, extra: 1 }), {
        'content-type': type,
        'x-api-key': opts.key,
      });
  }

  // Metadata keys named as Object.prototype's members. The valid pairs ride on the order's Idempotency-Key with another
  // request: refused (422) by the creation's own transaction, so they reach the item's write without being charged.
  const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype);
  const admitted = PROTO_KEYS.filter((k) => /^[a-z]/i.test(k));
  const creations = [
    ['/videos:quick', { prompt: 'A 10 second video about tea' }],
    ['/videos', { topic: 'Tea', duration_seconds: 10 }],
  ] as const;
  for (const [path, valid] of creations) {
    const replayKey = { ...json, 'idempotency-key': opts.orderIdempotencyKey };
    add('prototype-named keys', 'POST', path, JSON.stringify({ ...valid, metadata: Object.fromEntries(admitted.map((k) => [k, 'v'])) }), replayKey);
    for (const k of PROTO_KEYS) {
      add('prototype-named keys', 'POST', path, JSON.stringify({ ...valid, metadata: { [k]: 'v' } }), replayKey);
      for (const w of [5, null, {}, { prototype: { polluted: true } }, ['v'], 'v'.repeat(501)])
        add('prototype-named keys', 'POST', path, JSON.stringify({ ...valid, metadata: { [k]: w } }));
      add('prototype-named keys', 'POST', path, JSON.stringify({ ...valid, duration_seconds: -1, prompt: '', metadata: { [k]: 'v' } }));
    }
    add('prototype-named keys', 'POST', path, `{${JSON.stringify(valid).slice(1, -1)}, "metadata": {"__proto__": {"polluted": true}}}`);
  }
  for (const k of PROTO_KEYS) {
    out.push({ kind: 'prototype-named filter', method: 'GET', path: `/v1/videos?metadata[${k}]=v`, headers: json, emptyPage: admitted.includes(k) });
    add('prototype-named filter', 'GET', `/videos?metadata[${k}]=v&metadata[other]=v`);
    add('prototype-named filter', 'GET', `/videos?metadata[${k}][prototype]=v`);
  }

  for (const id of BAD_IDS) {
    add('bad id', 'GET', `/videos/${id}`);
    add('bad id', 'POST', `/videos/${id}/review`, JSON.stringify({ action: 'approve' }));
    add('bad id', 'POST', `/videos/${id}/cancel`);
    add('bad id', 'DELETE', `/webhooks/${id}`);
    add('bad id', 'GET', `/webhooks/${id}/deliveries`);
    add('bad id', 'GET', `/assets/${id}`);
    add('bad id', 'DELETE', `/assets/${id}`);
    // An order naming a malformed (or another kind of) id as its picture: 422 naming the field, nothing charged.
    add('bad asset id', 'POST', '/videos', JSON.stringify({ topic: 'Tea', duration_seconds: 10, logo: id }));
    add('bad asset id', 'POST', '/videos', JSON.stringify({ topic: 'Tea', duration_seconds: 10, placement: { product: 'Cup', image: id } }));
    add('bad id', 'GET', `/files/${id}/video.mp4`);
    add('bad id', 'GET', `/files/${opts.orderId}/${id}`);
    add('bad id', 'GET', `/files/${id}/video.mp4?expires=9999999999&sig=${'A'.repeat(43)}`);
  }
  for (const trick of PATH_TRICKS) {
    const [method, path] = trick.split(' ') as [string, string];
    out.push({ kind: 'path trick', method, path, headers: json, ...(method === 'POST' ? { body: '{}' } : {}) });
  }
  add('review on a webhook id', 'POST', `/videos/${opts.webhookId}/review`, JSON.stringify({ action: 'approve' }));
  // An order id where an asset id goes, and a well-formed asset id that exists nowhere: 404, or 422 naming the field.
  add('asset route on an order id', 'GET', `/assets/${opts.orderId}`);
  add('unknown asset', 'POST', '/videos', JSON.stringify({ topic: 'Tea', duration_seconds: 10, logo: 'ast_01m88sdrykmmkkdgyfr9yzsa5f' }));
  add('unknown asset', 'POST', '/videos:quick', JSON.stringify({ prompt: 'Tea', logo: 'ast_01m88sdrykmmkkdgyfr9yzsa5f' }));
  for (const size of [0, -1, 10 * 1024 * 1024 + 1, 1.5, 2 ** 53]) {
    add('asset size', 'POST', '/assets', JSON.stringify({ kind: 'image', content_type: 'image/png', size_bytes: size }));
  }
  for (const type of ['image/gif', 'image/svg+xml', 'text/html', 'IMAGE/PNG', '']) {
    add('asset type', 'POST', '/assets', JSON.stringify({ kind: 'image', content_type: type, size_bytes: 100 }));
  }
  for (const query of [
    'limit=0',
    'limit=-1',
    'limit=1e3',
    'limit=abc',
    'limit=',
    'limit=1&limit=2',
    'status=DONE',
    'status[]=done',
    `starting_after=${'v'.repeat(5000)}`,
    `starting_after=${opts.webhookId}`,
    'created_gte=2026-13-45T99:00:00Z',
    'created_lt=%00',
    'order=desc',
    '__proto__=1',
    'limit=0x10',
    'limit=%2010',
    'limit=1.0',
    'created_gte=2026-06-01T00:00:00Z&created_lt=2026-01-01T00:00:00Z',
    'created_gte=1969-06-01T00:00:00Z&created_lt=1969-01-01T00:00:00Z',
    'created_gte=2026-01-01T00:00Z',
    'created_lt=2026-02-30T00:00:00Z',
  ]) {
    add('bad query', 'GET', `/videos?${query}`);
    if (!/status|created/.test(query)) add('bad query', 'GET', `/balance/transactions?${query}`);
  }
  // Times before 1970, in year 0 or far ahead, and cursors older than the range: no order is there.
  for (const query of [
    'created_gte=9999-12-31T23:59:59.999Z',
    'created_lt=0000-01-01T00:00:00Z',
    'created_lt=1969-12-31T23:59:59Z',
    'created_lt=1970-01-01T00:30:00%2B01:00',
    'created_gte=1900-01-01T00:00:00Z&created_lt=1969-01-01T00:00:00Z',
    'created_gte=2026-01-01T00:00:00Z&created_lt=2026-01-01T00:00:00Z',
    'created_gte=9999-01-01T00:00:00Z&starting_after=vid_01kbg000000000000000000000',
    'status=done&created_gte=9999-01-01T00:00:00Z&starting_after=vid_01kbg000000000000000000000',
    'created_gte=2026-01-01T00:00:00Z&starting_after=vid_00000000000000000000000000',
  ]) {
    out.push({ kind: 'query outside the data', method: 'GET', path: `/v1/videos?${query}`, headers: json, emptyPage: true });
  }
  out.push({
    kind: 'query outside the data',
    method: 'GET',
    path: '/v1/balance/transactions?starting_after=txn_00000000000000000000000000',
    headers: json,
    emptyPage: true,
  });
  add('deliveries of an order id', 'GET', `/webhooks/${opts.orderId}/deliveries`);

  const keys = [
    '',
    ' ',
    'vgk_',
    `${opts.key}x`,
    opts.key.slice(0, -1),
    opts.key.toUpperCase(),
    `${opts.key} ${opts.key}`,
    `vgk_${'a'.repeat(4000)}`,
    `Bearer ${opts.key}`,
    opts.key.replace('vgk_', 'vgk-'),
    // The live key dressed as a test-mode key, and a test prefix with no account behind it (issue 30).
    opts.key.replace('vgk_', 'vgk_test_'),
    'vgk_test_',
    `vgk_test_test_${opts.key.slice(4)}`,
  ];
  for (const key of keys) {
    add('bad key', 'GET', '/balance', undefined, { 'x-api-key': key });
    add('bad key', 'POST', '/videos:quick', JSON.stringify({ prompt: 'A video about tea' }), { 'content-type': 'application/json', 'x-api-key': key });
  }
  for (const idem of ['x'.repeat(256), 'x'.repeat(4000), '', ' ']) {
    add('bad Idempotency-Key', 'POST', '/videos:quick', JSON.stringify({ prompt: '' }), { ...json, 'idempotency-key': idem });
  }

  // Random mixes: a wrong body on a random route with a random content type and header noise.
  const routes = BODIES.map((b) => ({ method: b.method, path: b.path(opts.orderId), valid: b.valid, alsoValid: b.alsoValid }));
  while (out.length < opts.count) {
    const r = pick(routes);
    const body: Record<string, unknown> = { ...r.valid };
    const fields = Object.keys(body);
    const mutations = 1 + Math.floor(random() * 3);
    // Dropping an optional field leaves a valid order: every body gets at least one wrong value or unknown field.
    const wrong = new Set<string>();
    for (let i = 0; i < mutations || wrong.size === 0; i++) {
      const field = pick(fields);
      const roll = random();
      if (roll < 0.6) {
        body[field] = pick(wrongIn(r, r.valid[field]));
        wrong.add(field);
      } else if (roll < 0.8) {
        delete body[field];
        wrong.delete(field);
      } else {
        const unknown = `x_${Math.floor(random() * 1e6)}`;
        body[unknown] = pick(WRONG_VALUES);
        wrong.add(unknown);
      }
    }
    const headers: Record<string, string> = { ...json };
    if (random() < 0.2) headers['idempotency-key'] = 'k'.repeat(Math.floor(random() * 600));
    if (random() < 0.1) headers['content-type'] = pick(CONTENT_TYPES);
    add('random', r.method, r.path, JSON.stringify(body), headers);
  }
  return out;
}

/**
 * Requests fetch will not send: header injection, control bytes, oversized headers, broken framing. (Dot segments
 * are not among them: every URL parser on the way, API Gateway's too, resolves /v1/x/../balance to /v1/balance.)
 */
export function rawRequests(key: string): RawRequest[] {
  // Connection: close, so that the answer ends with the connection whatever its framing.
  const req = (kind: string, head: string, body = '') => ({
    kind,
    bytes: Buffer.from(`${head.replace('\r\nHost: x', '\r\nHost: x\r\nConnection: close')}\r\n\r\n${body}`, 'latin1'),
  });
  return [
    req('header injection', `GET /v1/balance HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nX-Injected: a\rb`),
    req('header injection', `GET /v1/balance HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\nX-Other: 1`),
    req('header injection', `GET /v1/balance HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\u0000evil`),
    req('null byte in path', `GET /v1/bal\u0000ance HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}`),
    req('space in path', `GET /v1/bal ance HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}`),
    req('oversized key', `GET /v1/balance HTTP/1.1\r\nHost: x\r\nX-API-Key: vgk_${'a'.repeat(20_000)}`),
    req(
      'oversized headers',
      `GET /v1/balance HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n${Array.from({ length: 300 }, (_, i) => `X-H${i}: ${'v'.repeat(100)}`).join('\r\n')}`,
    ),
    req(
      'oversized Idempotency-Key',
      `POST /v1/videos:quick HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nIdempotency-Key: ${'i'.repeat(20_000)}`,
      '{}',
    ),
    req(
      'two content lengths',
      `POST /v1/videos:quick HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 40`,
      '{}',
    ),
    req(
      'chunked and content length',
      `POST /v1/videos:quick HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked`,
      '2\r\n{}\r\n0\r\n\r\n',
    ),
    req(
      'bad chunk',
      `POST /v1/videos:quick HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked`,
      'zz\r\n{}\r\n0\r\n\r\n',
    ),
    req('bad method', `G@T /v1/balance HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}`),
    req('bad version', `GET /v1/balance HTTP/9.9\r\nHost: x\r\nX-API-Key: ${key}`),
    req('latin-1 key', `GET /v1/balance HTTP/1.1\r\nHost: x\r\nX-API-Key: vgk_\u00e9\u00ff`),
  ];
}
