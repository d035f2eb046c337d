/**
 * Items the service reads from DynamoDB, counted per user by a middleware on the handlers' own client (the local
 * stack runs them in the test's process): a query's examined items (ScannedCount) in the user's partition, a GetItem
 * of the user's item, and each item of another partition (an order) that names the user.
 */
const read = new Map<string, number>();
let installed = false;

const userOfPk = (pk: unknown) => (typeof pk === 'string' && pk.startsWith('USER#') ? pk.slice('USER#'.length) : undefined);
const add = (userId: string | undefined, n: number) => {
  if (userId !== undefined && n) read.set(userId, (read.get(userId) ?? 0) + n);
};

/** Starts counting (once per process); call after the stack has started. */
export async function countReads(): Promise<void> {
  if (installed) return;
  installed = true;
  const { aws } = await import('../../functions/adapters/aws.ts');
  aws().ddb.middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      const input = args.input as { Key?: { PK?: string }; ExpressionAttributeValues?: Record<string, unknown> };
      const output = out.output as { ScannedCount?: number; Item?: Record<string, unknown>; Responses?: Record<string, Record<string, unknown>[]> };
      if (output.ScannedCount !== undefined) add(userOfPk(input.ExpressionAttributeValues?.[':pk']), output.ScannedCount);
      if (output.Item) add(userOfPk(input.Key?.PK) ?? (output.Item.userId as string | undefined), 1);
      for (const items of Object.values(output.Responses ?? {})) for (const item of items) add(userOfPk(item.PK) ?? (item.userId as string | undefined), 1);
      return out;
    },
    { step: 'initialize', name: 'testReadCounter' },
  );
}

/** The items read for `userId` so far. */
export const readsOf = (userId: string) => read.get(userId) ?? 0;

/** The items read for `userId` by `fn`, and its time. */
export async function readsBy<T>(userId: string, fn: () => Promise<T>): Promise<{ items: number; ms: number; result: T }> {
  const from = readsOf(userId);
  const started = performance.now();
  const result = await fn();
  return { items: readsOf(userId) - from, ms: performance.now() - started, result };
}
