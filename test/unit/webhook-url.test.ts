import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { describe, it } from 'node:test';
import { InvalidParams } from '../../functions/core/errors.ts';
import { checkWebhookUrl, type UrlPolicy } from '../../functions/core/webhook-url.ts';

// The machine's real resolver: "localhost" and /etc/hosts names resolve for real; public names cannot (no network).
const real: UrlPolicy = { allowPrivate: false, resolve: async (h) => (await lookup(h, { all: true })).map((a) => a.address) };
// Public DNS cannot be reached from this machine, so a public name's answer is the one thing given here.
const withPublicDns: UrlPolicy = {
  allowPrivate: false,
  resolve: async (h) => (h === 'hooks.example.com' ? ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] : real.resolve(h)),
};
// Names whose DNS answers hide a private target: IPv4-compatible IPv6 (::/96) forms, or a private address beside a public one.
const PRIVATE_DNS: Record<string, string[]> = {
  'compat-metadata.example.com': ['::a9fe:a9fe'], // 169.254.169.254
  'compat-private.example.com': ['93.184.215.14', '::a00:1'], // 10.0.0.1
  'intranet.example.com': ['10.1.2.3'],
};
const withPrivateDns: UrlPolicy = { allowPrivate: false, resolve: async (h) => PRIVATE_DNS[h] ?? withPublicDns.resolve(h) };

const HOSTILE = [
  'http://93.184.215.14/hook', // not https
  'ftp://93.184.215.14/hook',
  'https://user:pass@93.184.215.14/hook',
  'https://127.0.0.1/hook',
  'https://127.1.2.3/hook',
  'https://2130706433/hook', // decimal 127.0.0.1
  'https://0177.0.0.1/hook', // octal
  'https://0x7f.0.0.1/hook', // hex
  'https://0/hook',
  'https://0.0.0.0/hook',
  'https://10.0.0.1/hook',
  'https://172.16.0.1/hook',
  'https://172.31.255.255/hook',
  'https://192.168.1.1/hook',
  'https://100.64.0.1/hook', // CGNAT
  'https://169.254.169.254/latest/meta-data', // metadata
  'https://169.254.1.1/hook', // link-local
  'https://224.0.0.1/hook', // multicast
  'https://239.255.255.250/hook',
  'https://255.255.255.255/hook',
  'https://192.0.2.10/hook', // documentation
  'https://198.18.0.1/hook', // benchmarking
  'https://[::1]/hook',
  'https://[::]/hook',
  'https://[::ffff:127.0.0.1]/hook', // IPv4-mapped
  'https://[::ffff:7f00:1]/hook',
  'https://[::ffff:169.254.169.254]/hook',
  'https://[fd00:ec2::254]/hook', // metadata, IPv6
  'https://[fc00::1]/hook', // unique-local
  'https://[fe80::1]/hook', // link-local
  'https://[ff02::1]/hook', // multicast
  'https://[2001:db8::1]/hook', // documentation
  'https://[64:ff9b::7f00:1]/hook', // NAT64 of 127.0.0.1
  'https://[2002:7f00:1::]/hook', // 6to4 of 127.0.0.1
  'https://[::127.0.0.1]/hook', // IPv4-compatible (::/96) of 127.0.0.1
  'https://[::7f00:1]/hook',
  'https://[::a9fe:a9fe]/hook', // IPv4-compatible of 169.254.169.254
  'https://[::a00:1]/hook', // IPv4-compatible of 10.0.0.1
  'https://[::5db8:d70e]/hook', // IPv4-compatible of a public address: deprecated (RFC 4291), refused all the same
  'https://compat-metadata.example.com/hook', // resolves to ::a9fe:a9fe
  'https://compat-private.example.com/hook', // one of its addresses is ::a00:1
  'https://intranet.example.com/hook', // resolves to 10.1.2.3
  'https://localhost/hook', // resolves to loopback
  'https://localhost./hook',
  'https://no-such-host.invalid/hook', // does not resolve
  'not a url',
  'https:///hook',
];

describe('webhook url policy', () => {
  it(`refuses ${HOSTILE.length} hostile urls with 422 naming url`, async () => {
    for (const url of HOSTILE) {
      await assert.rejects(checkWebhookUrl(url, withPrivateDns), (e: unknown) => e instanceof InvalidParams && e.field === 'url', url);
    }
  });

  it('names no address a host resolves to in its refusal, only the kind of failure', async () => {
    const refusal = (url: string) =>
      checkWebhookUrl(url, withPrivateDns).then(
        () => assert.fail(`${url} was accepted`),
        (e: InvalidParams) => e.message,
      );
    for (const name of Object.keys(PRIVATE_DNS)) {
      const message = await refusal(`https://${name}/hook`);
      assert.equal(message, `url: must be a public address; ${name} resolves to a private or reserved address`);
    }
    assert.equal(await refusal('https://localhost/hook'), 'url: must be a public address; localhost resolves to a private or reserved address');
    // A literal address is the client's own text: the refusal may name it.
    assert.equal(await refusal('https://[::a00:1]/hook'), 'url: must be a public address; ::a00:1 is a private or reserved address');
  });

  it('accepts public https urls, by address or by a name that resolves to public addresses', async () => {
    for (const url of ['https://93.184.215.14/hook', 'https://[2606:4700:4700::1111]:8443/x?y=1', 'https://hooks.example.com/video-events']) {
      const { url: normalized, addresses } = await checkWebhookUrl(url, withPublicDns);
      assert.ok(normalized.startsWith('https://'));
      assert.ok(addresses.length > 0);
    }
  });

  it('lets development targets through only when allowed', async () => {
    const dev = { ...real, allowPrivate: true };
    assert.equal((await checkWebhookUrl('http://127.0.0.1:9000/hook', dev)).url, 'http://127.0.0.1:9000/hook');
    await assert.rejects(checkWebhookUrl('ftp://127.0.0.1/hook', dev));
  });
});
