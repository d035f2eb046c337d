/**
 * The webhook address policy (docs/webhooks.md): public HTTPS only. A host name must resolve, and every address it
 * resolves to must be public unicast: loopback, private, link-local, unique-local, CGNAT, multicast, reserved,
 * metadata and IPv4-mapped forms of those are refused, and so is IPv4-compatible IPv6 (::/96) whatever it carries.
 * ipaddr.js classifies the ranges; the WHATWG URL parser has already turned decimal, octal and hex IPv4 forms into
 * dotted quads.
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

/** IPv4-compatible IPv6 (deprecated by RFC 4291): ipaddr.js names :: and ::1 in it, and calls the rest unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** Public unicast, with IPv4-mapped IPv6 seen as the IPv4 it carries and IPv4-compatible IPv6 refused whole. */
function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return parsed.range() === 'unicast' && !(parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE));
}

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
  const literal = ipaddr.isValid(host);
  const addresses = literal ? [host] : await policy.resolve(host).catch(() => []);
  if (!addresses.length) throw invalid(`host ${host} does not resolve`);
  // The refusal says what kind of address, never one a name resolved to: it would map the networks behind the name.
  if (!policy.allowPrivate && !addresses.every(isPublicAddress)) {
    throw invalid(`must be a public address; ${host} ${literal ? 'is' : 'resolves to'} a private or reserved address`);
  }
  return { url: url.toString(), addresses };
}
