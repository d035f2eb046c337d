/**
 * Which function the code on this async path runs as: on AWS each route handler and step is its own Lambda; here
 * they share a process, so the gateway and the Step Functions engine name the function of every call they make. The
 * infrastructure tests use it to see which AWS actions each function really performs (its least privileges).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const invocation = new AsyncLocalStorage<string>();
