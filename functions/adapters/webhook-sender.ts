/**
 * One webhook delivery attempt over HTTPS. The address is checked again right before sending, and the connection goes
 * to the address that was checked (a custom lookup), so a name that re-resolves to a private address cannot be used
 * to reach one. Redirects are not followed, the certificate must verify, and the answer must come within 5 seconds.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { AppError } from '../core/errors.ts';
import { checkWebhookUrl, type UrlPolicy } from '../core/webhook-url.ts';

const DELIVERY_TIMEOUT_MS = 5000;

export interface AttemptResult {
  ok: boolean;
  status?: number;
  error?: string;
  latencyMs: number;
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
      return { ok: false, error: err instanceof AppError ? err.message : 'address check failed', latencyMs: latency() };
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
      req.on('error', (err: Error & { code?: string }) => {
        const timedOut = err.name === 'AbortError' || err.name === 'TimeoutError';
        resolve({ ok: false, error: timedOut ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : (err.code ?? err.message), latencyMs: latency() });
      });
      req.end(body);
    });
  }
}
