/**
 * The webhook address policy (docs/webhooks.md): public HTTPS only. A host name must resolve, and every address it
 * resolves to must be public unicast: loopback, private, link-local, unique-local, CGNAT, multicast, reserved,
 * metadata and IPv4-mapped forms of those are refused. ipaddr.js classifies the ranges; the WHATWG URL parser has
 * already turned decimal, octal and hex IPv4 forms into dotted quads.
 */
import ipaddr from 'ipaddr.js';
import { InvalidParams } from './errors.ts';

type Resolve = (host: string) => Promise<string[]>;

export interface UrlPolicy {
  /** Development only (one machine): allow http and private targets. */
  allowPrivate: boolean;
  resolve: Resolve;
}

const invalid = (reason: string) => new InvalidParams('url', reason);

/** The range of an address, with IPv4-mapped IPv6 seen as the IPv4 it carries. */
function addressRange(address: string): string {
  return ipaddr.process(address).range();
}

const isPublicAddress = (address: string) => ipaddr.isValid(address) && addressRange(address) === 'unicast';

/** Checks a webhook url; returns it normalized with the public addresses it resolved to. */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<{ url: string; addresses: string[] }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('is not a valid URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) throw invalid('must use https');
  if (url.username || url.password) throw invalid('must not contain credentials');
  if (url.hash) throw invalid('must not contain a fragment');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw invalid('must name a host');
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    addresses = await policy.resolve(host).catch(() => []);
    if (!addresses.length) throw invalid(`host ${host} does not resolve`);
  }
  if (!policy.allowPrivate) {
    const blocked = addresses.find((a) => !isPublicAddress(a));
    if (blocked) throw invalid(`must be a public address; ${host} is ${addressRange(blocked)} (${blocked})`);
  }
  return { url: url.toString(), addresses };
}
