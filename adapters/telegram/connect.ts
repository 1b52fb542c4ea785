/**
 * Startup calls: getMe (who are we — needed for mention gating), then
 * deleteWebhook or setWebhook. Each is retried on network/server failures
 * until the caller's signal gives up, and fails at once when Telegram says
 * no (a rejected token is reported as fatal). setMyCommands is best effort.
 */
import { type Api, GrammyError } from "grammy";
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";
import { type Clock, NO_JITTER, retry } from "../../config/timing/index.js";
import type { HealthTracker } from "../common/health-tracker.js";
import { isUnauthorized, retryAfterMs } from "./errors.js";
import type { BotIdentity } from "./gating.js";
import { gs } from "./grammy-signal.js";
import type { BotCommand, TelegramTiming } from "./options.js";

export interface StartupDeps {
  readonly api: Api;
  readonly health: HealthTracker;
  readonly logger: Logger;
  readonly timing: TelegramTiming;
  readonly clock: Clock;
}

export async function connect(deps: StartupDeps, signal: AbortSignal): Promise<BotIdentity> {
  const me = await startupCall(deps, "getMe", (s) => deps.api.raw.getMe(gs(s)), signal);
  if (!me.username) throw new HermesError("HGW_ERR_ADAPTER_START", "Telegram getMe returned a bot without a username.");
  return { id: me.id, username: me.username };
}

/** Runs one startup call, retrying transient failures with capped backoff (Telegram's retry_after first) until `signal` aborts. */
export async function startupCall<T>(deps: StartupDeps, method: string, fn: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
  const policy = { initialMs: deps.timing.networkBaseMs, maxMs: deps.timing.networkMaxMs, jitter: NO_JITTER };
  try {
    return await retry(() => fn(signal), {
      policy,
      maxAttempts: Number.POSITIVE_INFINITY,
      signal,
      clock: deps.clock,
      retryable: (err) => (err instanceof GrammyError && err.error_code === 429 ? { retryAfterMs: retryAfterMs(err) } : !isUnauthorized(err) && !refused(err)),
      onRetry: ({ error, attempt, delayMs }) => {
        deps.health.set("retrying", `${method} failed: ${error instanceof Error ? error.message : String(error)}`);
        deps.logger.warn({ err: error, attempt, delayMs }, `telegram ${method} failed; retrying`);
      },
    });
  } catch (err) {
    if (isUnauthorized(err)) {
      deps.health.set("fatal", "Telegram rejected the bot token");
      throw new HermesError("HGW_ERR_ADAPTER_START", `Telegram rejected the bot token (${method}). Check gateway.platforms.telegram.token.`, { cause: err });
    }
    if (refused(err)) throw new HermesError("HGW_ERR_ADAPTER_START", `Telegram refused ${method}: ${err.description}`, { cause: err });
    throw new HermesError("HGW_ERR_ADAPTER_START", `Telegram ${method} did not succeed before the connect timeout.`, { cause: err });
  }
}

/** Telegram said no (a 4xx other than 429): asking again gets the same answer. */
function refused(err: unknown): err is GrammyError {
  return err instanceof GrammyError && err.error_code < 500 && err.error_code !== 429;
}

/** Telegram accepts 1–32 chars of [a-z0-9_] and a 1–256 char description; others are dropped with a warning. */
export async function publishCommands(api: Api, commands: readonly BotCommand[], logger: Logger, signal: AbortSignal): Promise<void> {
  if (commands.length === 0) return;
  const valid = commands.filter((c) => /^[a-z0-9_]{1,32}$/.test(c.command) && c.description.length >= 1 && c.description.length <= 256);
  if (valid.length < commands.length)
    logger.warn({ dropped: commands.filter((c) => !valid.includes(c)).map((c) => c.command) }, "some commands are not valid Telegram commands");
  await api.raw
    .setMyCommands({ commands: valid.slice(0, 100).map((c) => ({ command: c.command, description: c.description })) }, gs(signal))
    .catch((err: unknown) => {
      logger.warn({ err }, "setMyCommands failed; the command menu may be stale");
    });
}
