/**
 * The discord.js client as this adapter runs it, and its login. Intents:
 * Guilds, GuildMessages, DirectMessages and the privileged MessageContent;
 * DMs arrive through the Channel partial. REST goes to `api_url` with no
 * retries of discord.js's own (a timed-out message create must not be sent
 * again); the gateway URL Discord advertises can be pinned with `gateway_url`
 * (a proxy). A bad token or a refused intent fails the login with a fatal,
 * coded error instead of a retry loop.
 */
import { once } from "node:events";
import { Client, type ClientOptions, Events, GatewayIntentBits, Options, Partials, type RESTOptions, SimpleShardingStrategy } from "discord.js";
import { HermesError } from "../../config/errors.js";
import { linkedSignal } from "../../config/linked-signal.js";
import type { DiscordConfig } from "../../config/schema.js";
import type { DiscordTiming } from "./options.js";

export const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent];

type GatewayManager = Parameters<NonNullable<NonNullable<ClientOptions["ws"]>["buildStrategy"]>>[0];

/** `makeRequest`: REST's request function (where each request leaves, first tries and retries alike). */
export function createClient(config: DiscordConfig, timing: DiscordTiming, makeRequest: RESTOptions["makeRequest"]): Client {
  const gatewayUrl = config.gateway_url;
  return new Client({
    intents: INTENTS,
    partials: [Partials.Channel],
    rest: { api: config.api_url.replace(/\/+$/, ""), retries: 0, timeout: timing.requestTimeoutMs, makeRequest },
    // Replies are posted through REST; the cache only serves reply context and mention names.
    makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 50 }),
    ...(gatewayUrl ? { ws: { buildStrategy: (manager: GatewayManager) => pinnedGateway(manager, gatewayUrl.replace(/\/+$/, "")) } } : {}),
  });
}

/** Connects to `url` instead of the URL Discord advertises, for the first connection and for every resume. */
function pinnedGateway(manager: GatewayManager, url: string): SimpleShardingStrategy {
  const fetchInfo = manager.fetchGatewayInformation.bind(manager);
  manager.fetchGatewayInformation = async (force?: boolean) => ({ ...(await fetchInfo(force)), url });
  const update = manager.options.updateSessionInfo;
  manager.options.updateSessionInfo = (shardId, info) => update(shardId, info ? { ...info, resumeURL: url } : info);
  return new SimpleShardingStrategy(manager);
}

export type LoginFailure = "token" | "intents" | "other";

/** Logs in and waits until the client is ready (READY and every guild); rejects with a coded error. */
export async function login(client: Client, token: string, timing: DiscordTiming, signal: AbortSignal): Promise<void> {
  const limit = linkedSignal([signal], timing.readyTimeoutMs);
  try {
    const ready = once(client, Events.ClientReady, { signal: limit.signal });
    ready.catch(() => undefined);
    await client.login(token);
    await ready;
  } catch (err) {
    throw loginError(err, limit.signal.aborted && !signal.aborted ? "the client was not ready in time" : undefined);
  } finally {
    limit.dispose();
  }
}

export function loginFailure(err: unknown): LoginFailure {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === "TokenInvalid" || /authentication failed/i.test(message)) return "token";
  if (/disallowed intents|invalid intents/i.test(message)) return "intents";
  return "other";
}

function loginError(err: unknown, why?: string): HermesError {
  const failure = loginFailure(err);
  const message = err instanceof Error ? err.message : String(err);
  if (failure === "token")
    return new HermesError("HGW_ERR_ADAPTER_AUTH", `Discord rejected the bot token (${message}). Check gateway.platforms.discord.token (DISCORD_BOT_TOKEN).`, {
      cause: err,
    });
  if (failure === "intents") return new HermesError("HGW_ERR_DISCORD_INTENTS", `(${message})`, { cause: err });
  return new HermesError("HGW_ERR_ADAPTER_START", `Discord login failed: ${why ?? message}`, { cause: err });
}
