/**
 * The timing toolkit every layer uses (config/ is the bottom of the
 * dependency order, so agent, tools, adapters and gateway may all import
 * it): one Clock, one abortable sleep, one backoff policy and retry loop,
 * one way to stop waiting on work when a signal aborts.
 */

export { type BackoffPolicy, backoffDelayMs, NO_JITTER, retryDelayMs } from "./backoff.js";
export { type Clock, sleepUnlessAborted, startTimer, systemClock } from "./clock.js";
export { raceAbort } from "./race-abort.js";
export { type RetryInfo, type RetryOptions, type RetryVerdict, retry } from "./retry.js";
export { sleep } from "./sleep.js";
