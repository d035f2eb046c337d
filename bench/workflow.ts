/**
 * The order workflow on the local stack: Step Functions state transitions per order (quick, and director mode with one
 * approve) and the time from creation to done of a 15 s quick order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../local/stack.ts';
import { BUCKET_GRANTS } from '../lib/access.ts';

export interface WorkflowFigures {
  quickTransitions: number;
  directorTransitions: number;
  createToDoneSeconds: number;
}

export async function benchWorkflow(): Promise<WorkflowFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-workflow-'));
  const stack = await startLocalStack({ bucketGrants: BUCKET_GRANTS, port: 0, s3Dir: join(dir, 's3'), env: { POWERTOOLS_LOG_LEVEL: 'CRITICAL' } });
  try {
    const { services } = await import('../functions/app/services.ts');
    const { apiKey } = await services().stores.accounts.createUser({ balance: 10_000, trialVideos: 0, now: new Date() });
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const api = async (method: string, path: string, body?: unknown) =>
      (await (await fetch(`${stack.baseUrl}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) })).json()) as any;
    const until = async (id: string, status: string) => {
      for (;;) {
        const o = await api('GET', `/videos/${id}`);
        if (o.status === status) return o;
        if (o.status === 'error') throw new Error(`order ${id} failed: ${JSON.stringify(o.error)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const arn = (id: string) => `${stack.env.ORDER_STATE_MACHINE_ARN!.replace(':stateMachine:', ':execution:')}:${id}`;

    const started = performance.now();
    const quick = await api('POST', '/videos:quick', { prompt: 'A 15 seconds video about green tea' });
    await until(quick.id, 'done');
    const createToDoneSeconds = (performance.now() - started) / 1000;
    await stack.sfn.idle();

    const director = await api('POST', '/videos', { topic: 'Green tea', duration_seconds: 15, director_mode: true });
    await until(director.id, 'awaiting_review');
    await api('POST', `/videos/${director.id}/review`, { action: 'approve' });
    await until(director.id, 'done');
    await stack.sfn.idle();
    return { quickTransitions: stack.sfn.transitions(arn(quick.id)), directorTransitions: stack.sfn.transitions(arn(director.id)), createToDoneSeconds };
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
