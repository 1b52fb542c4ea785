/**
 * One group of updates → translate → `sink.deliver()` → answer the click.
 * Shared by polling and webhook. `process` resolves only once the sink has
 * committed the event (or the update was skipped), which is what lets the
 * transports acknowledge to Telegram afterwards; it rejects when the update
 * must be offered again (sink failure, transient download failure).
 */
import type { Update } from "grammy/types";
import type { Logger } from "pino";
import { TransientIngressError } from "../common/download.js";
import type { DeliverResult, InboundSink } from "../types.js";
import type { TelegramOutbound } from "./outbound.js";
import { type TranslateContext, type Translation, translateGroup } from "./translate.js";

export interface IngressDeps {
  readonly ctx: TranslateContext;
  readonly sink: InboundSink;
  readonly outbound: TelegramOutbound;
  readonly logger: Logger;
}

export class Ingress {
  constructor(private readonly deps: IngressDeps) {}

  async process(group: readonly Update[], signal?: AbortSignal): Promise<void> {
    const t = await this.translate(group, signal);
    const ids = group.map((u) => u.update_id);
    if (t.kind === "skip") {
      this.deps.logger.debug({ updateIds: ids, reason: t.reason }, "telegram update skipped");
      this.answer(t.callbackQueryId, undefined);
      return;
    }
    const result = await this.deps.sink.deliver(t.event);
    this.answer(t.callbackQueryId, result);
  }

  private async translate(group: readonly Update[], signal?: AbortSignal): Promise<Translation> {
    try {
      return await translateGroup(group, this.deps.ctx, signal);
    } catch (err) {
      if (err instanceof TransientIngressError) throw err;
      // A malformed update must not wedge the loop: log it and let its offset advance.
      this.deps.logger.error({ err, updateIds: group.map((u) => u?.update_id) }, "telegram update could not be translated; skipping it");
      return { kind: "skip", reason: "translation failed" };
    }
  }

  /** Every click is answered, with the gateway's reply when it gave one. Not awaited: the click UI only needs it soon. */
  private answer(queryId: string | undefined, result: DeliverResult | undefined): void {
    if (!queryId) return;
    const reply = result?.status === "action" ? result.reply : undefined;
    this.deps.outbound.answerCallback(queryId, reply).catch((err: unknown) => {
      this.deps.logger.warn({ err, queryId }, "answerCallbackQuery failed");
    });
  }
}
