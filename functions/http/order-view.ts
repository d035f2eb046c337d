/**
 * An order as GET /videos/{id} and GET /videos answer it: a done order with links signed afresh, an active one with
 * where it stands in the queue's view now (a snapshot a few seconds old at most), any other as stored.
 */
import type { OrderRecord } from '../contract/orders.ts';
import { standing, standingOf, type QueueView } from '../core/eta.ts';
import { isActiveTask, type Order, type Standing, toRecord } from '../core/orders.ts';
import { services } from '../app/services.ts';

export async function orderView(order: Order, now: Date, view?: QueueView): Promise<{ record: OrderRecord; standing?: Standing }> {
  const { links, snapshots } = services();
  if (order.status === 'done') return { record: toRecord(order, await links.issue(order.id, now)) };
  if (!isActiveTask(order.status)) return { record: toRecord(order) };
  const where = standing(view ?? (await snapshots.view()), standingOf(order), now.getTime());
  return { record: toRecord(order, undefined, where), standing: where };
}
