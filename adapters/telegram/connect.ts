/**
 * Startup calls: getMe (who are we — needed for mention gating), then
 * deleteWebhook or setWebhook. Each is retried on network/server failures
 * until the caller's signal gives up, and fails at once when Telegram says
 * no (a rejected token is reported as fatal). setMyCommands is best effort.
 */
import { GrammyError, type Api } from "grammy";
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";
import { gs, sleep } from "./abort.js";
import { isUnauthorized, retryAfterMs } from "./errors.js";
import type { BotIdentity } from "./gating.js";
import type { HealthTracker } from "../shared/health-tracker.js";
import type { BotCommand, TelegramTiming } from "./options.js";

export interface StartupDeps {
  readonly api: Api;
  readonly health: HealthTracker;
  readonly logger: Logger;
  readonly timing: TelegramTiming;
}

export async function connect(deps: StartupDeps, signal: AbortSignal): Promise<BotIdentity> {
  const me = await startupCall(deps, "getMe", (s) => deps.api.raw.getMe(gs(s)), signal);
  if (!me.username) throw new HermesError("HGW_ERR_ADAPTER_START", "Telegram getMe returned a bot without a username.");
  return { id: me.id, username: me.username };
}

/** Runs one startup call, retrying transient failures with capped backoff until `signal` aborts. */
export async function startupCall<T>(deps: StartupDeps, method: string, fn: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(signal);
    } catch (err) {
      if (isUnauthorized(err)) {
        deps.health.set("fatal", "Telegram rejected the bot token");
        throw new HermesError("HGW_ERR_ADAPTER_START", `Telegram rejected the bot token (${method}). Check gateway.platforms.telegram.token.`, { cause: err });
      }
      if (err instanceof GrammyError && err.error_code < 500 && err.error_code !== 429) {
        throw new HermesError("HGW_ERR_ADAPTER_START", `Telegram refused ${method}: ${err.description}`, { cause: err });
      }
      if (signal.aborted) throw new HermesError("HGW_ERR_ADAPTER_START", `Telegram ${method} did not succeed before the connect timeout.`, { cause: err });
      const backoff = Math.min(deps.timing.networkBaseMs * 2 ** (attempt - 1), deps.timing.networkMaxMs);
      const delayMs = err instanceof GrammyError && err.error_code === 429 ? retryAfterMs(err) : backoff;
      deps.health.set("retrying", `${method} failed: ${err instanceof Error ? err.message : String(err)}`);
      deps.logger.warn({ err, attempt, delayMs }, `telegram ${method} failed; retrying`);
      await sleep(delayMs, signal);
    }
  }
}

/** Telegram accepts 1–32 chars of [a-z0-9_] and a 1–256 char description; others are dropped with a warning. */
export async function publishCommands(api: Api, commands: readonly BotCommand[], logger: Logger, signal: AbortSignal): Promise<void> {
  if (commands.length === 0) return;
  const valid = commands.filter((c) => /^[a-z0-9_]{1,32}$/.test(c.command) && c.description.length >= 1 && c.description.length <= 256);
  if (valid.length < commands.length) logger.warn({ dropped: commands.filter((c) => !valid.includes(c)).map((c) => c.command) }, "some commands are not valid Telegram commands");
  await api.raw.setMyCommands({ commands: valid.slice(0, 100).map((c) => ({ command: c.command, description: c.description })) }, gs(signal)).catch((err: unknown) => {
    logger.warn({ err }, "setMyCommands failed; the command menu may be stale");
  });
}
