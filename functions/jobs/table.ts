/**
 * Scheduled entries: each runs on a timer (one machine) or an EventBridge schedule (AWS), every `everySeconds`. On one
 * machine each also runs once at start, with `atStart` as its event: the sweep then needs no grace, since a process
 * that has just started has no workflow start of its own on the way.
 */
export const JOBS = [{ name: 'sweep', everySeconds: 60, atStart: { graceSeconds: 0, full: true } }] as const;
