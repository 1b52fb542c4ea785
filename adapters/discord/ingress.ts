/**
 * Messages in: translate → `sink.deliver()`, one channel's messages strictly
 * in order (a message waits for the one before it in the same channel, even
 * while that one's files download), channels independent of each other.
 * Discord does not redeliver, so nothing here is acknowledged: a message is
 * handled once the sink has committed it. Live messages and those a
 * catch-up fetched take the same path; the sink drops the ones it already has.
 */
import type { Message } from "discord.js";
import type { Logger } from "pino";
import type { InboundSink } from "../types.js";
import { type TranslateContext, type Translation, translateMessage } from "./translate.js";

export interface IngressDeps {
  readonly ctx: TranslateContext;
  readonly sink: InboundSink;
  readonly logger: Logger;
  /** Aborted when the adapter stops: downloads in flight give up. */
  readonly signal: AbortSignal;
}

export class Ingress {
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly deps: IngressDeps) {}

  /** Resolves once `m` was committed or skipped (after the channel's earlier messages); never rejects. */
  handle(m: Message, origin: "live" | "catch-up"): Promise<void> {
    const key = m.channelId;
    const next = (this.chains.get(key) ?? Promise.resolve()).then(() => this.process(m, origin));
    this.chains.set(key, next);
    void next.finally(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
    return next;
  }

  /** Resolves when every message handed in so far is done. */
  async idle(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  private async process(m: Message, origin: "live" | "catch-up"): Promise<void> {
    const log = this.deps.logger;
    const t = await this.translate(m);
    if (t.kind === "skip") {
      log.debug({ messageId: m.id, channelId: m.channelId, origin, reason: t.reason }, "discord message skipped");
      return;
    }
    try {
      const result = await this.deps.sink.deliver(t.event);
      log.debug({ messageId: m.id, origin, status: result.status }, "discord message delivered");
    } catch (err) {
      log.error({ err, messageId: m.id, channelId: m.channelId, origin }, "discord message could not be committed; a later catch-up may find it again");
    }
  }

  private async translate(m: Message): Promise<Translation> {
    try {
      return await translateMessage(m, this.deps.ctx, this.deps.signal);
    } catch (err) {
      this.deps.logger.error({ err, messageId: m.id }, "discord message could not be translated; skipping it");
      return { kind: "skip", reason: "translation failed" };
    }
  }
}
