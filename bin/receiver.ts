/**
 * npm run receiver: the reference webhook receiver on http://127.0.0.1:RECEIVER_PORT (4000). WEBHOOK_SECRET is the
 * secret POST /webhooks returned. With `npm start` running under WEBHOOK_ALLOW_PRIVATE_URLS=on, register
 * http://127.0.0.1:4000/ as the webhook and watch the events arrive.
 */
import { createReceiver } from '../local/receiver.ts';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the secret POST /webhooks returned.');
  process.exit(1);
}
const port = Number(process.env.RECEIVER_PORT ?? 4000);
const server = createReceiver({
  secret: () => secret,
  onEvent: (e) =>
    console.log(
      `${new Date().toISOString()} ${e.headers['x-service-event'] ?? ''} ${e.id} ${e.status}${e.body.result_url ? ` ${String(e.body.result_url)}` : ''}`,
    ),
});
server.listen(port, '127.0.0.1', () => console.log(`receiver listening on http://127.0.0.1:${port}/`));
process.on('SIGINT', () => server.close(() => process.exit(0)));
