/**
 * Builds the LLM side of the agent from the frozen Config: the primary target
 * plus the `fallback_providers` chain behind one resilient StreamFn, the
 * credential pools (state in HERMES_HOME/auth.json), and the auxiliary client.
 * Called by the composition root; nothing here reads the environment.
 */
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";
import type { Config } from "../../config/schema.js";
import { type BackoffPolicy, type Clock, systemClock } from "../../config/timing/index.js";
import { AuthStore } from "../resilience/auth-store.js";
import type { PoolEntryView } from "../resilience/credential-pool.js";
import { type ResilientStreamFn, type RetryInfo, withResilience } from "../resilience/failover.js";
import type { ClassifiedError, ModelTarget } from "../types.js";
import { type AuxiliaryClient, createAuxiliaryClient } from "./auxiliary.js";
import { contextLengthFor } from "./catalog.js";
import { createProviderHttp } from "./http.js";
import { PoolRegistry, resolveChain, toResilienceTarget } from "./targets.js";

export interface ProviderDeps {
  /** HERMES_HOME: auth.json lives here. */
  readonly home: string;
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly backoff?: BackoffPolicy;
  readonly onSwitch?: (target: ModelTarget, why: ClassifiedError | "restored") => void;
  readonly onRetry?: (info: RetryInfo) => void;
}

export interface ProviderRuntime {
  /** The StreamFn to give the agent loop: retries, rotation and fallback inside. */
  readonly stream: ResilientStreamFn;
  /** The primary target. */
  readonly target: ModelTarget;
  /** The target currently in use (changes after a fallback; see `onSwitch`). */
  activeTarget(): ModelTarget;
  /**
   * The context window the next request naming `model` gets (a session's
   * /model): the primary sends that model, so its window is the model's own;
   * a fallback in use sends its own model, so its window applies. No model:
   * the window of the target in use.
   */
  contextLengthFor(model?: string): number;
  /** Primary first, then fallbacks. */
  readonly targets: readonly ModelTarget[];
  readonly auxiliary: AuxiliaryClient;
  /** Redacted pool state per provider, for /status. */
  pools(): readonly { readonly provider: string; readonly entries: readonly PoolEntryView[] }[];
  /** Writes pending credential usage counters to auth.json and waits for every write (call at shutdown). */
  flush(): Promise<void>;
  /** At shutdown, after the last turn: flush(), then end the connection pool. */
  close(): Promise<void>;
}

/** Throws HermesError(HGW_ERR_PROVIDER_NOT_CONFIGURED) listing every problem in the chain. */
export function createStreamFn(config: Config, deps: ProviderDeps): ProviderRuntime {
  const clock = deps.clock ?? systemClock;
  const { specs, problems } = resolveChain(config);
  const main = specs[0];
  if (problems.length > 0 || !main) throw new HermesError("HGW_ERR_PROVIDER_NOT_CONFIGURED", problems.join("; "));
  const logger = deps.logger;
  const store = new AuthStore(deps.home, logger);
  const pools = new PoolRegistry({ clock, store, ...(logger ? { logger } : {}) });
  const http = createProviderHttp();
  const build = {
    clock,
    http,
    idleTimeoutMs: config.model.stream_idle_timeout_s * 1000,
    requestTimeoutMs: config.model.request_timeout_s * 1000,
    ...(logger ? { logger } : {}),
  };
  const stream = withResilience(
    // Only the primary honours the request's model (a session's /model); fallbacks keep their own.
    specs.map((s, i) => ({ ...toResilienceTarget(s, pools, build), usesRequestModel: i === 0 })),
    {
      clock,
      maxRetryAfterS: config.model.retry_max_wait_s,
      restorePrimaryAfterS: config.model.fallback_restore_s,
      ...(logger ? { logger } : {}),
      ...(deps.backoff ? { backoff: deps.backoff } : {}),
      ...(deps.onSwitch ? { onSwitch: deps.onSwitch } : {}),
      ...(deps.onRetry ? { onRetry: deps.onRetry } : {}),
    },
  );
  const auxiliary = createAuxiliaryClient(config, { clock, pools, main, http, idleTimeoutMs: build.idleTimeoutMs, ...(logger ? { logger } : {}) });
  const flush = async () => {
    await Promise.all(pools.all().map((p) => p.flush()));
  };
  return {
    stream,
    target: main.target,
    activeTarget: stream.activeTarget,
    contextLengthFor: (model) => {
      const active = stream.activeTarget();
      if (!model || active !== main.target || model === main.target.model) return active.contextLength;
      return contextLengthFor(model);
    },
    targets: specs.map((s) => s.target),
    auxiliary,
    pools: () => pools.all().map((p) => ({ provider: p.provider, entries: p.snapshot() })),
    flush,
    close: async () => {
      await flush();
      await http.close();
    },
  };
}

export type { ResilienceTarget, ResilientStreamFn, RetryInfo } from "../resilience/failover.js";
export { withResilience } from "../resilience/failover.js";
export type { AuxiliaryClient, AuxResult, AuxTask } from "./auxiliary.js";
export { contextLengthFor, PROVIDER_CATALOG, resolveApiMode, usesDeveloperRole } from "./catalog.js";
