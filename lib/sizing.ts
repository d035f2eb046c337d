/**
 * Render capacity sized from demand (docs/deploy.md, Sizing): a stage declares the peak it expects and what an order
 * holds a slot for, and its renderSlots follow, so that the slots are busy at most the target share of the time at that
 * peak and a burst drains within minutes instead of queueing for hours.
 *
 *   slots = ceil(orders an hour x slot seconds per order / 3,600 / target utilisation)
 */

export interface Demand {
  /** The orders an hour the stage must keep up with at its busiest hour. */
  peakOrdersPerHour: number;
  /**
   * How long one order holds a render slot: plan, script, render and upload. After a deploy, from the measured
   * RenderSecondsPerVideoSecond times the typical video's seconds, plus the other steps (docs/deploy.md).
   */
  slotSecondsPerOrder: number;
  /** The busy share of the slots at that peak, above 0 and at most 1; the rest absorbs bursts. */
  targetUtilisation: number;
}

/** The render slots that serve `d` at its target utilisation: at least one. */
export function slotsFor(d: Demand): number {
  const busy = (d.peakOrdersPerHour * d.slotSecondsPerOrder) / 3600 / d.targetUtilisation;
  // A product that should be whole (240 x 15 / 3600 / 0.5 = 2) may come out a hair above it in floating point.
  return Math.max(1, Math.ceil(busy - 1e-9));
}

/** What is wrong with a demand, naming the field; undefined when it is sound. */
export function demandProblem(d: Demand): string | undefined {
  if (!Number.isInteger(d.peakOrdersPerHour) || d.peakOrdersPerHour < 1) return `peakOrdersPerHour must be an integer >= 1, got ${d.peakOrdersPerHour}`;
  if (!Number.isFinite(d.slotSecondsPerOrder) || d.slotSecondsPerOrder <= 0)
    return `slotSecondsPerOrder must be a number above 0, got ${d.slotSecondsPerOrder}`;
  if (!Number.isFinite(d.targetUtilisation) || d.targetUtilisation <= 0 || d.targetUtilisation > 1)
    return `targetUtilisation must be above 0 and at most 1, got ${d.targetUtilisation}`;
  return undefined;
}
