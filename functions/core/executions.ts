/**
 * The names of the Step Functions executions the service starts, all built here. StartExecution takes 1-80
 * characters; names of ASCII letters, digits, - and _ only also keep CloudWatch Logs and X-Ray able to show them.
 * An order's first execution is named by its id and an event's delivery by its id (so a second start of either is a
 * no-op); a later execution of either adds why it started (s: the audit sweep, e: the recovery of an ended execution, r: a
 * review or a resend) and when.
 */
export const EXECUTION_NAME_MAX = 80;
export const EXECUTION_NAME_RE = /^[A-Za-z0-9_-]+$/;

const safe = (id: string) => id.replace(/[^A-Za-z0-9_-]/g, '-');

/** The execution carrying an order: the one recorded on it, else its first, named by its id. */
export const orderExecution = (order: { id: string; execution?: string }) => order.execution ?? order.id;

/** The execution delivering an event: the one recorded on it, else its first, named by its id (`:` made `-`). */
export const eventExecution = (event: { id: string; execution?: string }) => event.execution ?? safe(event.id);

/** A new execution of an order or an event: its id, why (`s`, `e`, `r`: above) and the moment. */
export const newExecution = (id: string, why: 's' | 'e' | 'r', now: Date) => `${safe(id)}-${why}${now.getTime()}`;
