/** POST /videos:quote: what an order would cost, item by item, and a quote that holds that price. Nothing is charged. */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.quoteVideo)(async (req) => {
  const body = req.body;
  const request =
    'prompt' in body
      ? { kind: 'quick' as const, prompt: body.prompt, ...(body.logo ? { logo: body.logo } : {}) }
      : (() => {
          const { deadline_seconds: _d, quote_id: _q, max_cost: _m, metadata: _meta, ...params } = body;
          return { kind: 'explicit' as const, params };
        })();
  return { status: 200, body: await services().quoting.quote({ account: req.account, request, now: req.now }) };
});
