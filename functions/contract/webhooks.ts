import * as z from 'zod/mini';

/** Body of POST /webhooks. The address policy (public HTTPS) is checked after the shape. */
export const createWebhookBody = z.strictObject({
  url: z.string().check(z.trim(), z.minLength(1, 'is required'), z.maxLength(2048, 'must be at most 2048 characters')),
});

export const webhookView = z.object({
  id: z.string(),
  url: z.url(),
  active: z.boolean(),
  created_at: z.string(),
});
/** 201 of POST /webhooks: the only answer that carries the secret. */
export const webhookCreated = z.extend(webhookView, { secret: z.string() });
/** GET /webhooks. */
export const webhookList = z.object({ data: z.array(webhookView) });
export type WebhookView = z.infer<typeof webhookView>;
