/**
 * Which function the code on this async path runs as: on AWS each route handler and step is its own Lambda; here
 * they share a process, so the gateway and the Step Functions engine run every call through `invoke`, which names
 * the function for the AWS calls it makes (the infrastructure tests check each function's grants with it) and tells
 * listeners how long it ran (the cost benchmark's Lambda GB-seconds).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const invocation = new AsyncLocalStorage<string>();

type Listener = (name: string, ms: number) => void;
const listeners = new Set<Listener>();

/** Calls `listener` after every invocation; returns the function that stops it. */
export function onInvocation(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function invoke<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await invocation.run(name, fn);
  } finally {
    const ms = performance.now() - started;
    for (const listener of listeners) listener(name, ms);
  }
}
