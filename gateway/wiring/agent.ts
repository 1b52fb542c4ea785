/**
 * The LLM side of the daemon: providers from the config, or — on a fresh
 * install with no key — a stream that answers every turn with what to set,
 * so the daemon still starts and tells the person what is missing.
 */
import type { Logger } from "pino";
import type { ProviderRuntime } from "../../agent/providers/index.js";
import { createStreamFn } from "../../agent/providers/index.js";
import type { ClassifiedError, StreamFn } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import type { Config } from "../../config/index.js";

export interface AgentSide {
  readonly stream: StreamFn;
  readonly providers: ProviderRuntime | null;
  /** Why there is no provider, when there is none. */
  readonly problem: string | null;
}

/** The providers the config names; throws the HermesError that says why they cannot be built (HGW_ERR_PROVIDER_NOT_CONFIGURED, …). */
export function configuredAgentSide(config: Config, logger: Logger): AgentSide {
  const providers = createStreamFn(config, {
    home: config.home,
    logger: logger.child({ component: "providers" }),
    onSwitch: (target, why) => logger.warn({ provider: target.provider, model: target.model, why: why === "restored" ? why : why.reason }, "model switched"),
  });
  return { stream: providers.stream, providers, problem: null };
}

/** The daemon's: without a provider it still starts, and every turn answers with what to configure. */
export function buildAgentSide(config: Config, logger: Logger): AgentSide {
  try {
    return configuredAgentSide(config, logger);
  } catch (err) {
    if (!(err instanceof HermesError) || err.code !== "HGW_ERR_PROVIDER_NOT_CONFIGURED") throw err;
    logger.warn({ problem: err.message }, "no model provider: every turn will answer with what to configure");
    return { stream: unconfiguredStream(err.message), providers: null, problem: err.message };
  }
}

function unconfiguredStream(message: string): StreamFn {
  const error: ClassifiedError = {
    reason: "auth_permanent",
    message,
    retryable: false,
    shouldCompress: false,
    shouldRotateCredential: false,
    shouldFallback: false,
  };
  return async function* () {
    yield { type: "error", error };
  };
}
