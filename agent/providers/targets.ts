/**
 * From the frozen Config to concrete model targets: which provider, model, API
 * mode, base URL, context window and keys each entry of the chain uses, filling
 * gaps from the built-in catalog. Problems are collected, not thrown one by one,
 * so startup can list all of them.
 */
import type { Logger } from "pino";
import type { ApiMode, Config } from "../../config/schema.js";
import type { AuthStore } from "../resilience/auth-store.js";
import { CredentialPool, type PoolStrategy } from "../resilience/credential-pool.js";
import type { ResilienceTarget } from "../resilience/failover.js";
import type { Clock, ModelTarget, StreamFn } from "../types.js";
import type { CacheTtl } from "./caching.js";
import { contextLengthFor, isOpenRouter, normalizeBaseUrl, providerDefaults, resolveApiMode } from "./catalog.js";
import type { ProviderHttp } from "./http.js";
import type { ProviderConnection } from "./stream-runner.js";

/** One entry of a chain as the config describes it (model section, fallback, or auxiliary override). */
export interface TargetRequest {
  readonly provider: string;
  readonly model: string;
  readonly base_url?: string | undefined;
  readonly api_key?: string | undefined;
  readonly api_mode?: ApiMode | undefined;
  readonly context_length?: number | undefined;
}

export interface TargetSpec {
  readonly target: ModelTarget;
  /** Explicit key first, then the provider's key and extra keys. Never log a spec. */
  readonly keys: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  readonly strategy: PoolStrategy;
  readonly maxRetries: number;
  readonly cacheTtl?: CacheTtl;
  /** See ProviderConnection.cacheModels. */
  readonly cacheModels?: RegExp;
}

/** Keyless local servers still need a non-empty key for the SDKs. */
export const KEYLESS_PLACEHOLDER = "not-needed";

export function resolveTarget(config: Config, want: TargetRequest, where: string): TargetSpec | { readonly problem: string } {
  const p = config.providers[want.provider];
  const defaults = providerDefaults(want.provider);
  const rawBase = want.base_url ?? p?.base_url ?? defaults.baseUrl;
  if (!rawBase) {
    return { problem: `${where}: provider "${want.provider}" has no built-in base URL; set ${where}.base_url or providers.${want.provider}.base_url` };
  }
  const apiMode = resolveApiMode({ explicit: want.api_mode ?? p?.api_mode, provider: want.provider, baseUrl: rawBase });
  const keys = [...new Set([want.api_key, p?.api_key, ...(p?.api_keys ?? [])].filter((k): k is string => Boolean(k)))];
  if (keys.length === 0 && !defaults.keyOptional) {
    return { problem: `${where}: provider "${want.provider}" needs an API key (providers.${want.provider}.api_key or the provider's environment variable)` };
  }
  const baseUrl = normalizeBaseUrl(rawBase, apiMode);
  const target: ModelTarget = {
    provider: want.provider,
    model: want.model,
    apiMode,
    baseUrl,
    contextLength: contextLengthFor(want.model, want.context_length),
  };
  const caching = cachingFor(config, target);
  return {
    target,
    keys: keys.length ? keys : [KEYLESS_PLACEHOLDER],
    headers: { ...defaults.defaultHeaders, ...p?.headers },
    strategy: p?.pool_strategy ?? "fill_first",
    maxRetries: p?.max_retries ?? 3,
    ...caching,
  };
}

/** OpenRouter passes cache markers through to Anthropic's models only. */
const OPENROUTER_CACHED_MODELS = /claude/i;

/**
 * Markers go to native Anthropic, and to OpenRouter for Claude models. On
 * OpenRouter the model is judged per request (a session's /model may switch
 * between Claude and other vendors behind the same target).
 */
function cachingFor(config: Config, t: ModelTarget): Pick<TargetSpec, "cacheTtl" | "cacheModels"> {
  if (!config.prompt_caching.enabled) return {};
  const ttl = config.prompt_caching.cache_ttl;
  if (t.apiMode === "anthropic_messages") return { cacheTtl: ttl };
  if (t.apiMode === "chat_completions" && isOpenRouter(t.baseUrl)) return { cacheTtl: ttl, cacheModels: OPENROUTER_CACHED_MODELS };
  return {};
}

/** The primary (model section) then each fallback, or every problem found. */
export function resolveChain(config: Config): { specs: TargetSpec[]; problems: string[] } {
  const wants: [TargetRequest, string][] = [
    [config.model, "model"],
    ...config.fallback_providers.map((f, i): [TargetRequest, string] => [f, `fallback_providers.${i}`]),
  ];
  const specs: TargetSpec[] = [];
  const problems: string[] = [];
  for (const [want, where] of wants) {
    const r = resolveTarget(config, want, where);
    if ("problem" in r) problems.push(r.problem);
    else specs.push(r);
  }
  return { specs, problems };
}

export interface BuildDeps {
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly store?: AuthStore;
  readonly http: ProviderHttp;
  readonly idleTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

/** Each API mode's SDK is loaded on its first call, so a daemon only pays start-up time for the SDKs it uses. */
const LOADERS: Readonly<Record<ApiMode, () => Promise<(c: ProviderConnection) => StreamFn>>> = {
  chat_completions: async () => (await import("./chat-completions.js")).chatCompletionsStream,
  anthropic_messages: async () => (await import("./anthropic-messages.js")).anthropicMessagesStream,
  codex_responses: async () => (await import("./codex-responses.js")).codexResponsesStream,
};

const STREAMS: Readonly<Record<ApiMode, (c: ProviderConnection) => StreamFn>> = {
  chat_completions: (c) => lazyStream("chat_completions", c),
  anthropic_messages: (c) => lazyStream("anthropic_messages", c),
  codex_responses: (c) => lazyStream("codex_responses", c),
};

function lazyStream(mode: ApiMode, conn: ProviderConnection): StreamFn {
  let real: StreamFn | undefined;
  return async function* (request, signal) {
    real ??= (await LOADERS[mode]())(conn);
    yield* real(request, signal);
  };
}

/**
 * Pools are shared per provider and key set, so the main chain and the
 * auxiliary client agree on which key is cooling down.
 */
export class PoolRegistry {
  readonly #pools = new Map<string, CredentialPool>();
  readonly #deps: Pick<BuildDeps, "clock" | "logger" | "store">;

  constructor(deps: Pick<BuildDeps, "clock" | "logger" | "store">) {
    this.#deps = deps;
  }

  get(spec: TargetSpec): CredentialPool {
    const key = `${spec.target.provider}\u0000${spec.keys.join("\u0000")}`;
    let pool = this.#pools.get(key);
    if (!pool) {
      pool = new CredentialPool({
        provider: spec.target.provider,
        keys: spec.keys,
        strategy: spec.strategy,
        clock: this.#deps.clock,
        ...(this.#deps.logger ? { logger: this.#deps.logger } : {}),
        ...(this.#deps.store ? { store: this.#deps.store } : {}),
      });
      this.#pools.set(key, pool);
    }
    return pool;
  }

  all(): readonly CredentialPool[] {
    return [...this.#pools.values()];
  }
}

export function toResilienceTarget(spec: TargetSpec, pools: PoolRegistry, deps: BuildDeps, maxRetries = spec.maxRetries): ResilienceTarget {
  const make = STREAMS[spec.target.apiMode];
  return {
    target: spec.target,
    pool: pools.get(spec),
    maxRetries,
    connect: (cred) =>
      make({
        provider: spec.target.provider,
        baseUrl: spec.target.baseUrl,
        apiKey: cred.apiKey,
        headers: spec.headers,
        idleTimeoutMs: deps.idleTimeoutMs,
        requestTimeoutMs: deps.requestTimeoutMs,
        contextLength: spec.target.contextLength,
        clock: deps.clock,
        http: deps.http,
        ...(spec.cacheTtl ? { cacheTtl: spec.cacheTtl } : {}),
        ...(spec.cacheModels ? { cacheModels: spec.cacheModels } : {}),
        ...(deps.extraBody ? { extraBody: deps.extraBody } : {}),
        ...(deps.logger ? { logger: deps.logger } : {}),
      }),
  };
}
