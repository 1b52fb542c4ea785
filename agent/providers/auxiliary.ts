/**
 * The auxiliary client, as in Hermes Agent: one-shot side calls — approval
 * judging, titles, compression summaries, vision — that can run on a cheaper
 * model. Each task reads `auxiliary.<task>` (provider, model, base_url,
 * api_key, timeout_s, extra_body); whatever it leaves out comes from the main
 * model, and if the override target fails the main model is tried next.
 */
import type { Logger } from "pino";
import { AUX_TASK_TIMEOUTS_S, type AUX_TASKS, type Config } from "../../config/schema.js";
import type { BackoffPolicy } from "../../config/timing/index.js";
import { internalError } from "../resilience/classify.js";
import { PROVIDER_BACKOFF, type ResilienceTarget, type ResilientStreamFn, withResilience } from "../resilience/failover.js";
import type { ClassifiedError, Clock, Message, ModelRequest, ModelTarget, Usage } from "../types.js";
import type { ProviderHttp } from "./http.js";
import { type PoolRegistry, resolveTarget, type TargetRequest, type TargetSpec, toResilienceTarget } from "./targets.js";

export type AuxTask = (typeof AUX_TASKS)[number];

export type AuxResult = { readonly text: string; readonly usage: Usage; readonly target: ModelTarget } | { readonly error: ClassifiedError };

export interface AuxOptions {
  readonly maxTokens?: number;
  readonly temperature?: number;
}

export interface AuxiliaryClient {
  /** Never throws: failures come back as `{ error }`. System messages become the system prompt. */
  complete(task: AuxTask, messages: readonly Message[], signal?: AbortSignal, opts?: AuxOptions): Promise<AuxResult>;
  /** The first target the task will use. */
  target(task: AuxTask): ModelTarget;
}

export interface AuxDeps {
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly pools: PoolRegistry;
  /** The main model, already resolved (the last resort of every task). */
  readonly main: TargetSpec;
  readonly idleTimeoutMs: number;
  /** The main chain's connection pool, shared. */
  readonly http: ProviderHttp;
}

/** One task's chain: its override target (if any) then the main model. */
interface AuxChain {
  readonly stream: ResilientStreamFn;
  readonly first: ModelTarget;
}

/** Side calls get one quick retry per target, not the main loop's patience. */
const AUX_RETRIES = 1;
/** ... after 1 s (10 s at most), with the provider retries' jitter. */
const AUX_BACKOFF: BackoffPolicy = Object.freeze({ ...PROVIDER_BACKOFF, initialMs: 1000, maxMs: 10_000 });
/**
 * Once a task's override target failed and the main model answered, the task
 * stays on the main model this long (Hermes Agent's 600-second cooldown, so
 * that repeat failures do not block every turn) instead of waiting out the
 * broken target again at every compression or photo.
 */
const AUX_FALLBACK_COOLDOWN_S = 600;

export function createAuxiliaryClient(config: Config, deps: AuxDeps): AuxiliaryClient {
  const chains = new Map<AuxTask, AuxChain>();
  const chainFor = (task: AuxTask) => {
    let chain = chains.get(task);
    if (!chain) {
      chain = buildChain(config, task, deps);
      chains.set(task, chain);
    }
    return chain;
  };
  return {
    target: (task) => chainFor(task).first,
    complete: (task, messages, signal, opts) => runComplete(chainFor(task), messages, signal ?? new AbortController().signal, opts),
  };
}

function buildChain(config: Config, task: AuxTask, deps: AuxDeps): AuxChain {
  const aux = config.auxiliary[task];
  const timeoutS = aux.timeout_s ?? AUX_TASK_TIMEOUTS_S[task];
  const build = {
    clock: deps.clock,
    http: deps.http,
    idleTimeoutMs: deps.idleTimeoutMs,
    requestTimeoutMs: timeoutS * 1000,
    ...(deps.logger ? { logger: deps.logger } : {}),
  };
  const extra = Object.keys(aux.extra_body).length > 0 ? { extraBody: aux.extra_body } : {};
  const targets: ResilienceTarget[] = [];
  const override = overrideRequest(config, task);
  if (override) {
    const spec = resolveTarget(config, override, `auxiliary.${task}`);
    if ("problem" in spec) deps.logger?.warn({ task }, `auxiliary override unusable, using the main model: ${spec.problem}`);
    else targets.push(toResilienceTarget(spec, deps.pools, { ...build, ...extra }, AUX_RETRIES));
  }
  targets.push(toResilienceTarget(deps.main, deps.pools, { ...build, ...(override ? {} : extra) }, AUX_RETRIES));
  const stream = withResilience(targets, {
    clock: deps.clock,
    ...(deps.logger ? { logger: deps.logger } : {}),
    backoff: AUX_BACKOFF,
    maxRetryAfterS: 10,
    restorePrimaryAfterS: AUX_FALLBACK_COOLDOWN_S,
  });
  return { stream, first: (targets[0] as ResilienceTarget).target };
}

/** The task's own target when it names anything; undefined means "just use the main model". */
function overrideRequest(config: Config, task: AuxTask): TargetRequest | undefined {
  const aux = config.auxiliary[task];
  if (!aux.provider && !aux.model && !aux.base_url && !aux.api_key) return undefined;
  const sameProvider = !aux.provider || aux.provider === config.model.provider;
  return {
    provider: aux.provider ?? config.model.provider,
    model: aux.model ?? config.model.model,
    base_url: aux.base_url ?? (sameProvider ? config.model.base_url : undefined),
    api_key: aux.api_key ?? (sameProvider ? config.model.api_key : undefined),
    api_mode: sameProvider && !aux.base_url ? config.model.api_mode : undefined,
  };
}

async function runComplete(chain: AuxChain, messages: readonly Message[], signal: AbortSignal, opts: AuxOptions = {}): Promise<AuxResult> {
  const { stream } = chain;
  const system = messages.flatMap((m) => (m.role === "system" ? [m.content] : [])).join("\n\n");
  const request: ModelRequest = {
    // Informational only: no auxiliary target sets usesRequestModel, so each sends its configured model.
    model: chain.first.model,
    system,
    messages: messages.filter((m) => m.role !== "system"),
    tools: [],
    ...(opts.maxTokens !== undefined ? { maxTokens: opts.maxTokens } : {}),
    ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
  };
  for await (const ev of stream(request, signal)) {
    if (ev.type === "error") return { error: ev.error };
    if (ev.type === "done") return { text: ev.message.content ?? "", usage: ev.usage, target: stream.activeTarget() };
  }
  return { error: internalError("auxiliary stream ended without a result") };
}
