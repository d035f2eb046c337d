/**
 * Scheduled entries: each runs on a timer (one machine) or an EventBridge schedule (AWS), every `everySeconds`. On one
 * machine each also runs once at start, with `atStart` as its event: the sweep then needs no grace and checks everything,
 * since a process that has just started has no workflow start of its own on the way and lost the executions it ran.
 */
export const JOBS = [{ name: 'sweep', everySeconds: 60, atStart: { graceSeconds: 0, full: true } }] as const;

/**
 * Entries run on an execution's status change, for the executions of both state machines that end with one of
 * `statuses`: on AWS an EventBridge rule on Step Functions' "Execution Status Change" events; on one machine the local
 * endpoint's same events (local/stepfunctions.ts), matched by the same pattern.
 */
export const EXECUTION_LISTENERS = [{ name: 'recover', statuses: ['FAILED', 'TIMED_OUT', 'ABORTED'] }] as const;

/** EventBridge's detail-type of Step Functions' status-change events. */
export const EXECUTION_STATUS_CHANGE = 'Step Functions Execution Status Change';

/**
 * Entries other functions invoke and wait for (Lambda's synchronous Invoke; on one machine the local Lambda endpoint,
 * local/lambda.ts). The asset check runs in the render's image (lib/functions.ts IMAGE_FUNCTIONS), so an upload is
 * decoded by the render's own ffmpeg.
 */
export const INVOKED = [{ name: 'check-asset' }] as const;
