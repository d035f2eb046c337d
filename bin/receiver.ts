/**
 * npm run receiver: the reference webhook receiver on http://127.0.0.1:RECEIVER_PORT (4000). WEBHOOK_SECRET is the
 * secret POST /webhooks returned (during a rotation, the new and the previous one separated by a comma). It refuses a
 * delivery whose timestamp is more than WEBHOOK_TOLERANCE_SECONDS (300) from now. With `npm start` running under
 * WEBHOOK_ALLOW_PRIVATE_URLS=on, register http://127.0.0.1:4000/ as the webhook and watch the events arrive.
 */
import { createReceiver } from '../local/receiver.ts';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the secret POST /webhooks returned.');
  process.exit(1);
}
const port = Number(process.env.RECEIVER_PORT ?? 4000);
const secrets = secret.split(',').map((s) => s.trim());
const tolerance = process.env.WEBHOOK_TOLERANCE_SECONDS ? Number(process.env.WEBHOOK_TOLERANCE_SECONDS) : undefined;
if (tolerance !== undefined && !(Number.isFinite(tolerance) && tolerance >= 0)) {
  console.error(`WEBHOOK_TOLERANCE_SECONDS is a number of seconds, 0 or more: ${process.env.WEBHOOK_TOLERANCE_SECONDS}`);
  process.exit(1);
}
const server = createReceiver({
  secret: () => secrets,
  ...(tolerance !== undefined ? { toleranceSeconds: tolerance } : {}),
  onEvent: (e) =>
    console.log(
      `${new Date().toISOString()} ${e.type} ${e.eventId}${e.status ? ` ${e.status}` : ''}${e.body.result_url ? ` ${String(e.body.result_url)}` : ''}`,
    ),
});
server.listen(port, '127.0.0.1', () => console.log(`receiver listening on http://127.0.0.1:${port}/`));
process.on('SIGINT', () => server.close(() => process.exit(0)));
