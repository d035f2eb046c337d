/**
 * One webhook delivery attempt over HTTPS. The address is checked again right before sending, and the connection goes
 * to the address that was checked (a custom lookup), so a name that re-resolves to a private address cannot be used
 * to reach one. Redirects are not followed, the certificate must verify, and the answer must come within 5 seconds.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { AppError, InvalidParams } from '../core/errors.ts';
import { checkWebhookUrl, type UrlPolicy } from '../core/webhook-url.ts';

const DELIVERY_TIMEOUT_MS = 5000;

export interface AttemptResult {
  ok: boolean;
  status?: number;
  error?: string;
  latencyMs: number;
}

/** Node's error codes: capitals, digits and underscores, never an address. */
const SAFE_CODE = /^[A-Z][A-Z0-9_]*$/;
const KINDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'timed out connecting',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  EHOSTDOWN: 'host unreachable',
};

/**
 * What kind of failure an attempt met, by its error code: never Node's message, which names the address and port
 * connected to ("connect ECONNREFUSED 10.1.2.3:443"); the client sees this in a test ping and the deliveries list.
 */
function failureKind(err: Error & { code?: string }): string {
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return `timed out: no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`;
  const code = err.code && SAFE_CODE.test(err.code) ? err.code : undefined;
  if (!code) return 'connection failed';
  if (KINDS[code]) return KINDS[code];
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code)) return `TLS error: the certificate did not verify (${code})`;
  if (/TLS|SSL/.test(code)) return `TLS error (${code})`;
  return `connection failed (${code})`;
}

export class WebhookSender {
  constructor(private readonly policy: UrlPolicy) {}

  async send(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    let addresses: string[];
    let target: URL;
    try {
      const checked = await checkWebhookUrl(url, this.policy);
      addresses = checked.addresses;
      target = new URL(checked.url);
    } catch (err) {
      const error = err instanceof InvalidParams ? err.reason : err instanceof AppError ? err.message : 'address check failed';
      return { ok: false, error, latencyMs: latency() };
    }
    const address = addresses[0]!;
    // The connection goes to the checked address; the name still drives SNI and the certificate check.
    const lookup: LookupFunction = (_host, options, callback) => {
      const family = isIP(address);
      if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<AttemptResult>((resolve) => {
      const req = request(
        target,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
          lookup,
          signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        },
        (res) => {
          res.resume();
          const status = res.statusCode ?? 0;
          res.on('end', () => resolve({ ok: status >= 200 && status < 300, status, latencyMs: latency() }));
          res.on('error', () => resolve({ ok: false, status, error: 'the answer broke off', latencyMs: latency() }));
        },
      );
      req.on('error', (err: Error & { code?: string }) => resolve({ ok: false, error: failureKind(err), latencyMs: latency() }));
      req.end(body);
    });
  }
}
