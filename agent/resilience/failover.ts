/**
 * `withResilience`: retries, credential rotation and provider fallback wrapped
 * around provider streams, presented to the agent loop as one plain StreamFn.
 *
 * Policy, read entirely from the classifier's flags:
 *  - Nothing is retried once content reached the consumer: a half-streamed
 *    answer is surfaced as an error, never silently replayed.
 *  - `shouldCompress` (context overflow, payload too large) and aborts go
 *    straight back to the caller, untouched: the loop compresses; we never fail over.
 *  - `repair` (the provider rejected one feature of the request) → the same
 *    request without it, at once, once per kind of repair.
 *  - `shouldRotateCredential` with another usable key → cool this key down, use the next, at once.
 *  - `retryable` → wait (the provider's retry-after when it gave one and it is
 *    short enough, else jittered backoff) and retry, up to the target's maxRetries.
 *  - Then `shouldFallback` (or retries used up) → next target in the chain;
 *    a failure that is neither retryable nor a fallback case (a policy block,
 *    a certificate failure, an abort) is surfaced.
 * After a fallback the wrapper stays on the new target (sticky) and returns to
 * the primary after `restorePrimaryAfterS`; each switch is announced through
 * `onSwitch` so the caller can recompute context budgets.
 */
import type { Logger } from "pino";
import { type BackoffPolicy, type Clock, retryDelayMs, sleepUnlessAborted } from "../../config/timing/index.js";
import type { ClassifiedError, ModelRequest, ModelTarget, ProviderEvent, RequestRepair, StreamFn } from "../types.js";
import { classifyError, internalError, poolExhaustedError } from "./classify.js";
import type { Credential, CredentialPool } from "./credential-pool.js";
import { factsFromError } from "./error-facts.js";
import { applyRepair } from "./request-repair.js";

export interface ResilienceTarget {
  readonly target: ModelTarget;
  /**
   * Send the request's `model` instead of `target.model`. Set on the main
   * chain's primary only: that is how a session's `/model` choice (which the
   * gateway passes as the request's model) reaches the wire. Fallbacks and
   * auxiliary targets leave it unset and always send their configured model,
   * since another provider cannot be assumed to know a model named for the primary.
   */
  readonly usesRequestModel?: boolean;
  readonly pool: CredentialPool;
  /** Builds the provider stream for one credential. */
  connect(credential: Credential): StreamFn;
  /** Retries of retryable failures on this target before moving on. */
  readonly maxRetries: number;
}

export interface RetryInfo {
  readonly target: ModelTarget;
  /** 1-based retry number on this target; 0 for an immediate credential rotation. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: ClassifiedError;
  /** Label (never the key) of the credential that failed. */
  readonly credential: string;
}

/**
 * Waits between retries of one target, as Hermes Agent retries: 5 s doubling
 * to 120 s, plus up to half again of jitter so many sessions retrying against
 * one provider at once spread out.
 */
export const PROVIDER_BACKOFF: BackoffPolicy = Object.freeze({ initialMs: 5_000, maxMs: 120_000, jitter: [1, 1.5] as const });

export interface ResilienceOptions {
  readonly clock: Clock;
  readonly logger?: Logger;
  /** Default PROVIDER_BACKOFF. */
  readonly backoff?: BackoffPolicy;
  /** Jitter source, uniform in [0, 1). Default Math.random. */
  readonly random?: () => number;
  /** A provider-requested wait longer than this is not slept through. Default 120 s. */
  readonly maxRetryAfterS?: number;
  /** After a fallback, try the primary again after this long. Default 300 s. */
  readonly restorePrimaryAfterS?: number;
  /** Called when the target used for a call differs from the previous call's. */
  readonly onSwitch?: (target: ModelTarget, why: ClassifiedError | "restored") => void;
  readonly onRetry?: (info: RetryInfo) => void;
}

/** A StreamFn that also says which target it is currently using. */
export type ResilientStreamFn = StreamFn & { readonly activeTarget: () => ModelTarget };

type DoneEvent = Extract<ProviderEvent, { type: "done" }>;
type Outcome =
  | { readonly kind: "done"; readonly event: DoneEvent }
  | { readonly kind: "surface"; readonly error: ClassifiedError }
  | { readonly kind: "next"; readonly error: ClassifiedError };

interface CallState {
  started: boolean;
  emittedContent: boolean;
}

/** The retry policy one attempt loop needs. */
interface Policy {
  readonly clock: Clock;
  readonly backoff: BackoffPolicy;
  readonly random: (() => number) | undefined;
  readonly maxRetryAfterS: number;
  readonly onRetry: ((info: RetryInfo) => void) | undefined;
}

export function withResilience(targets: readonly ResilienceTarget[], opts: ResilienceOptions): ResilientStreamFn {
  if (targets.length === 0) throw new Error("withResilience needs at least one target");
  const chain = new StickyChain(targets, opts);
  const policy: Policy = {
    clock: opts.clock,
    backoff: opts.backoff ?? PROVIDER_BACKOFF,
    random: opts.random,
    maxRetryAfterS: opts.maxRetryAfterS ?? 120,
    onRetry: opts.onRetry,
  };

  async function* run(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    const st: CallState = { started: false, emittedContent: false };
    let last: ClassifiedError | undefined;
    for (const i of chain.order()) {
      chain.announce(i, last ?? "restored");
      const outcome = yield* attemptTarget(targets[i] as ResilienceTarget, request, signal, st, policy);
      if (outcome.kind === "done") {
        chain.settle(i); // before yielding: a consumer may stop reading at `done`
        yield outcome.event;
        return;
      }
      if (outcome.kind === "surface") {
        yield { type: "error", error: outcome.error };
        return;
      }
      last = outcome.error;
      if (signal.aborted) break;
    }
    yield { type: "error", error: signal.aborted ? abortedDuringWait() : (last ?? internalError("no model target could be tried")) };
  }

  const stream = async function* (request: ModelRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    try {
      yield* run(request, signal);
    } catch (err) {
      // Providers never throw; this is our own I/O (e.g. the pool) failing. Still an event, never a throw.
      opts.logger?.error({ err }, "resilience wrapper failed");
      yield { type: "error", error: classifyError(factsFromError(err, { nowMs: opts.clock.now() })) };
    }
  };
  return Object.assign(stream, { activeTarget: () => chain.active() });
}

/**
 * Which target a call starts on: the last one that worked, until
 * `restorePrimaryAfterS` has passed since the switch; then the primary again.
 */
class StickyChain {
  readonly #targets: readonly ResilienceTarget[];
  readonly #opts: ResilienceOptions;
  readonly #restoreMs: number;
  #active = 0;
  #switchedAt = 0;
  #lastUsed = 0;

  constructor(targets: readonly ResilienceTarget[], opts: ResilienceOptions) {
    this.#targets = targets;
    this.#opts = opts;
    this.#restoreMs = (opts.restorePrimaryAfterS ?? 300) * 1000;
  }

  active(): ModelTarget {
    return (this.#targets[this.#active] as ResilienceTarget).target;
  }

  /** Indices to try, starting at the active target and wrapping round. */
  order(): number[] {
    if (this.#active > 0 && this.#opts.clock.now() - this.#switchedAt >= this.#restoreMs) this.#active = 0;
    const all = [...this.#targets.keys()];
    return all.slice(this.#active).concat(all.slice(0, this.#active));
  }

  /** Tells the caller when a call runs on another target than the previous call did. */
  announce(i: number, why: ClassifiedError | "restored"): void {
    if (i === this.#lastUsed) return;
    this.#lastUsed = i;
    const t = (this.#targets[i] as ResilienceTarget).target;
    this.#opts.logger?.warn({ provider: t.provider, model: t.model, reason: why === "restored" ? why : why.reason }, "switching model target");
    this.#opts.onSwitch?.(t, why);
  }

  /** Target `i` answered: later calls start there. */
  settle(i: number): void {
    if (i === this.#active) return;
    this.#active = i;
    this.#switchedAt = this.#opts.clock.now();
  }
}

/** What to do after a failed attempt, from the classifier's flags alone. */
type Step =
  | { readonly kind: "surface" | "next" | "rotate" }
  | { readonly kind: "repair"; readonly repair: RequestRepair }
  | { readonly kind: "retry"; readonly delayMs: number };

interface StepContext {
  readonly emittedContent: boolean;
  /** Repairs already applied to this call's request. */
  readonly repaired: ReadonlySet<RequestRepair>;
  readonly otherKeyAvailable: boolean;
  readonly retriesLeft: boolean;
  /** Retry number this would be (1-based). */
  readonly attempt: number;
}

export function nextStep(e: ClassifiedError, c: StepContext, policy: Pick<Policy, "backoff" | "random" | "maxRetryAfterS">): Step {
  if (c.emittedContent || e.reason === "aborted" || e.shouldCompress) return { kind: "surface" };
  if (e.repair && !c.repaired.has(e.repair)) return { kind: "repair", repair: e.repair };
  if (e.shouldRotateCredential && c.otherKeyAvailable) return { kind: "rotate" };
  if (e.retryable && c.retriesLeft && (e.retryAfterS === undefined || e.retryAfterS <= policy.maxRetryAfterS)) {
    const retryAfterMs = e.retryAfterS === undefined ? undefined : Math.ceil(e.retryAfterS * 1000);
    return { kind: "retry", delayMs: retryDelayMs(policy.backoff, c.attempt, retryAfterMs, policy.random) };
  }
  return e.shouldFallback || e.retryable ? { kind: "next" } : { kind: "surface" };
}

/** Runs one target until it answers, or the policy says surface the error or move on. */
async function* attemptTarget(
  t: ResilienceTarget,
  request: ModelRequest,
  signal: AbortSignal,
  st: CallState,
  policy: Policy,
): AsyncGenerator<ProviderEvent, Outcome> {
  let req: ModelRequest = { ...request, model: t.usesRequestModel && request.model ? request.model : t.target.model };
  let attempt = 0;
  const repaired = new Set<RequestRepair>();
  for (;;) {
    const cred = await t.pool.acquire();
    if (!cred) return { kind: "next", error: exhausted(t, policy.clock) };
    const result = yield* forward(t.connect(cred)(req, signal), st);
    if (result.type === "done") {
      await t.pool.markSuccess(cred);
      return { kind: "done", event: result };
    }
    const { error } = result;
    const step = nextStep(
      error,
      {
        emittedContent: st.emittedContent,
        repaired,
        otherKeyAvailable: t.pool.hasAvailable(cred.id),
        retriesLeft: attempt < t.maxRetries,
        attempt: attempt + 1,
      },
      policy,
    );
    switch (step.kind) {
      case "repair":
        repaired.add(step.repair);
        req = applyRepair(req, step.repair);
        continue;
      case "rotate":
        await t.pool.markExhausted(cred, error);
        policy.onRetry?.({ target: t.target, attempt: 0, delayMs: 0, error, credential: cred.label });
        continue;
      case "retry":
        attempt++;
        policy.onRetry?.({ target: t.target, attempt, delayMs: step.delayMs, error, credential: cred.label });
        if (!(await sleepUnlessAborted(policy.clock, step.delayMs, signal))) return { kind: "surface", error: abortedDuringWait() };
        continue;
      case "next":
        // A lone key is not cooled down: the sticky chain already skips this target for a while.
        if (error.shouldRotateCredential && t.pool.size > 1) await t.pool.markExhausted(cred, error);
        return { kind: "next", error };
      case "surface":
        return { kind: "surface", error };
    }
  }
}

function exhausted(t: ResilienceTarget, clock: Clock): ClassifiedError {
  const reset = t.pool.soonestReset();
  const waitS = reset ? Math.max(0, Math.ceil((reset.at - clock.now()) / 1000)) : undefined;
  return poolExhaustedError(t.target.provider, reset?.reason, waitS);
}

/** Forwards one attempt's events except the terminal one, which it returns for the caller to handle. */
async function* forward(
  events: AsyncIterable<ProviderEvent>,
  st: CallState,
): AsyncGenerator<ProviderEvent, DoneEvent | Extract<ProviderEvent, { type: "error" }>> {
  for await (const ev of events) {
    switch (ev.type) {
      case "start":
        if (st.started) continue;
        st.started = true;
        yield ev;
        continue;
      case "error":
      case "done":
        return ev;
      case "usage":
        yield ev;
        continue;
      default:
        st.emittedContent = true;
        yield ev;
    }
  }
  return { type: "error", error: internalError("provider stream ended without a done or error event") };
}

function abortedDuringWait(): ClassifiedError {
  return classifyError({ message: "request aborted while waiting to retry", abortCause: "caller", nowMs: 0 });
}
