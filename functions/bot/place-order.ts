/**
 * The chat bot's order entry: on AWS a function only IAM reaches (the bot's role may invoke it; no route leads here),
 * on one machine the operator CLI's `create-order` calls it. It places the order through the same use case as the
 * API, for the account the bot names, on the bot's channel. Answers the creation answer, or `{error: {code, message}}`.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { botOrderRequest } from '../contract/bot.ts';
import { createVideoBody } from '../contract/orders.ts';
import type { CreationResponse } from '../contract/orders.ts';
import type { OrderRequest } from '../core/create-order.ts';
import { AppError } from '../core/errors.ts';
import { publishMetrics } from '../adapters/metrics.ts';
import { isTransient } from '../adapters/transient.ts';
import { logger, services } from '../app/services.ts';
import { validate } from '../app/validate.ts';
import { present } from '../core/present.ts';

export type BotAnswer = (CreationResponse & { replayed: boolean }) | { error: { code: string; message: string } };

async function place(event: unknown): Promise<BotAnswer> {
  const req = validate(botOrderRequest, event);
  if ((req.prompt === undefined) === (req.topic === undefined)) throw new AppError('invalid_params', 'body: give either prompt or topic');
  let request: OrderRequest;
  if (req.prompt !== undefined) {
    if (req.params) throw new AppError('invalid_params', 'params: a prompt order takes its parameters from the prompt');
    request = { kind: 'quick', prompt: req.prompt, ...(req.director ? { director_mode: true } : {}) };
  } else {
    const params = validate(createVideoBody, { ...req.params, topic: req.topic, ...(req.director ? { director_mode: true } : {}) });
    request = { kind: 'explicit', params };
  }
  const result = await services().creation.bot(req.user_id, {
    request,
    ...present({ idempotencyKey: req.idempotency_key }),
    now: new Date(),
  });
  return { ...result.response, replayed: result.kind === 'replayed' };
}

export const handler = middy<unknown, BotAnswer>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics())
  .handler(async (event) => {
    try {
      return await place(event);
    } catch (err) {
      if (err instanceof AppError) return { error: { code: err.code, message: err.message } };
      if (isTransient(err)) return { error: { code: 'service_unavailable', message: 'A store is briefly unavailable; retry with the same idempotency_key' } };
      logger.error('bot order failed', { error: err as Error });
      return { error: { code: 'internal_error', message: 'Internal error; retry with the same idempotency_key' } };
    }
  });
