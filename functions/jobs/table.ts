/** Scheduled entries: each runs on a timer (one machine) or an EventBridge schedule (AWS), every `everySeconds`. */
export const JOBS = [{ name: 'sweep', everySeconds: 60 }] as const;
