/**
 * One run of the discord.js client, from login to destroy: its events wired
 * to the ingress, the interaction ingress, the health tracker and the
 * catch-up. The adapter makes a new one for every start (a client that was
 * destroyed is not logged in again).
 */
import { type Client, Events } from "discord.js";
import type { Logger } from "pino";
import { raceAbort } from "../../config/timing/index.js";
import type { HealthTracker } from "../common/health-tracker.js";
import type { ChatRef, InboundSink } from "../types.js";
import { catchUp } from "./catchup.js";
import { createClient, login, loginFailure } from "./client.js";
import type { DeferredReplies } from "./deferred.js";
import { Ingress } from "./ingress.js";
import { InteractionIngress } from "./interactions.js";
import type { DiscordAdapterOptions, DiscordTiming } from "./options.js";
import { DiscordOutbound, type OutboundRetry } from "./outbound.js";
import { PostingRequests } from "./posting-requests.js";
import type { TranslateContext } from "./translate.js";

export interface ConnectionDeps {
  readonly opts: DiscordAdapterOptions;
  readonly timing: DiscordTiming;
  readonly health: HealthTracker;
  readonly deferred: DeferredReplies;
  readonly logger: Logger;
  readonly now: () => number;
  /** The translator's context for this connection's client. */
  readonly context: (client: Client) => TranslateContext;
}

/** Close codes after which discord.js gives up, with what they mean for the operator. */
const FATAL_CLOSE: Readonly<Record<number, string>> = {
  4004: "Discord rejected the bot token (close 4004)",
  4010: "invalid shard (close 4010)",
  4011: "sharding required (close 4011)",
  4012: "invalid API version (close 4012)",
  4013: "invalid intents (close 4013)",
  4014: "the Message Content intent is not enabled for this bot (close 4014): enable it in the Developer Portal",
};

export class Connection {
  readonly client: Client;
  readonly out: DiscordOutbound;
  private readonly abort = new AbortController();
  private readonly ingress: Ingress;
  /** "as name#id" once logged in: the health's detail whenever the shard is up. */
  private identity: string | undefined;
  private catchingUp: Promise<void> = Promise.resolve();
  /** Work started in the background (command registration): awaited, within the stop signal, by close(). */
  private readonly background = new Set<Promise<void>>();

  constructor(
    private readonly deps: ConnectionDeps,
    sink: InboundSink,
  ) {
    const posting = new PostingRequests();
    this.client = createClient(deps.opts.config, deps.timing, posting.makeRequest);
    this.out = new DiscordOutbound(this.client.rest, () => this.client.application?.id ?? this.client.user?.id ?? "", posting, outboundRetry(deps));
    const ctx = deps.context(this.client);
    this.ingress = new Ingress({ ctx, sink, logger: deps.logger, signal: this.abort.signal });
    const interactions = new InteractionIngress({ sink, out: this.out, deferred: deps.deferred, logger: deps.logger });
    this.client.on(Events.MessageCreate, (m) => void this.ingress.handle(m, "live"));
    this.client.on(Events.InteractionCreate, (i) => void interactions.handle(i));
    this.watch();
  }

  /** Logs in and waits until ready; on failure the client is destroyed and the health says why. */
  async open(signal: AbortSignal): Promise<void> {
    const token = this.deps.opts.config.token ?? "";
    try {
      await login(this.client, token, this.deps.timing, signal);
    } catch (err) {
      const failure = loginFailure(err instanceof Error && err.cause !== undefined ? err.cause : err);
      if (failure === "token") this.deps.health.set("fatal", "Discord rejected the bot token");
      else if (failure === "intents") this.deps.health.set("fatal", FATAL_CLOSE[4014] as string);
      await this.close(AbortSignal.timeout(2000));
      throw err;
    }
    const me = this.client.user;
    this.identity = me ? `as ${me.username}#${me.id}` : undefined;
    this.deps.health.set("connected", this.identity);
  }

  /** Runs `task` in the background with this connection's signal; close() waits for it (within its own signal). */
  runInBackground(task: (signal: AbortSignal) => Promise<void>): void {
    const p = task(this.abort.signal).catch((err: unknown) => this.deps.logger.warn({ err }, "discord background task failed"));
    this.background.add(p);
    void p.finally(() => this.background.delete(p));
  }

  /** When the shard last heard a heartbeat ACK (epoch ms), if ever. */
  lastHeartbeatAck(): number | undefined {
    const t = this.client.ws.shards.first()?.lastPingTimestamp;
    return t !== undefined && t > 0 ? t : undefined;
  }

  /** Stops the catch-up and the ingress, then destroys the client (its socket closes with 1000). */
  async close(signal: AbortSignal): Promise<void> {
    this.abort.abort();
    const settled = Promise.allSettled([this.catchingUp, this.ingress.idle(), ...this.background]);
    await raceAbort(settled, signal).catch(() => undefined); // past the deadline the client is destroyed under them
    await this.client.destroy();
  }

  private watch(): void {
    const { client } = this;
    const { health, logger } = this.deps;
    client.on(Events.ShardReady, () => {
      health.set("connected", this.identity);
      // A new session: what was posted since the last one is not replayed by Discord.
      this.scheduleCatchUp();
    });
    client.on(Events.ShardResume, (_id, replayed) => {
      health.set("connected", this.identity);
      logger.info({ replayed }, "discord gateway connection resumed");
    });
    client.on(Events.ShardReconnecting, () => {
      health.reconnecting();
      logger.info("discord gateway connection lost; reconnecting");
    });
    client.on(Events.ShardDisconnect, (event) => {
      const why = FATAL_CLOSE[event.code] ?? `the gateway closed the connection for good (close ${event.code})`;
      health.set("fatal", why);
      logger.error({ code: event.code }, `discord: ${why}; not reconnecting`);
    });
    client.on(Events.ShardError, (err) => logger.warn({ err }, "discord gateway socket error"));
    client.on(Events.Raw, () => health.received());
    client.on(Events.Error, (err) => logger.error({ err }, "discord client error"));
    client.on(Events.Warn, (message) => logger.warn({ detail: message }, "discord client warning"));
    client.rest.on("rateLimited", (info) =>
      logger.info({ route: info.route, method: info.method, retryAfterMs: info.retryAfter, global: info.global }, "discord rate limit: waiting"),
    );
  }

  private scheduleCatchUp(): void {
    const { opts, timing, logger, now } = this.deps;
    const windowMs = opts.config.catchup_minutes * 60_000;
    const recentChats = opts.recentChats;
    if (!recentChats || windowMs <= 0) return;
    const run = async (): Promise<void> => {
      if (this.abort.signal.aborted) return;
      const chats = (since: number): readonly ChatRef[] => recentChats(since).filter((c) => c.platform === "discord");
      const read = await catchUp(
        { client: this.client, recentChats: chats, windowMs, pages: timing.catchupPages, handle: (m) => this.ingress.handle(m, "catch-up"), logger, now },
        this.abort.signal,
      );
      logger.info({ read }, "discord catch-up done");
    };
    this.catchingUp = this.catchingUp.then(run).catch((err: unknown) => logger.warn({ err }, "discord catch-up failed"));
  }
}

/** REST failures worth another try: `sendMaxAttempts` in all, `sendBackoffBaseMs` doubling to `sendBackoffMaxMs`, ±20 %. */
function outboundRetry(deps: ConnectionDeps): OutboundRetry {
  const t = deps.timing;
  return {
    maxAttempts: t.sendMaxAttempts,
    policy: { initialMs: t.sendBackoffBaseMs, maxMs: t.sendBackoffMaxMs, jitter: [0.8, 1.2] },
    clock: deps.opts.clock,
    onRetry: ({ error, attempt, delayMs }) => deps.logger.warn({ err: error, attempt, delayMs }, "discord call failed; retrying"),
  };
}
