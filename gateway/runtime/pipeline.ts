/**
 * The one inbound pipeline for every platform, written once so no adapter
 * keeps its own copy of the access check:
 * durable dedupe → access policy → prompt answers → commands → session mailbox.
 * `deliver` resolves as soon as the event is committed; the work it causes
 * runs afterwards, so an adapter can acknowledge its platform right away.
 */
import type { DeliverResult, InboundEvent, InboundMessage, InboundSink } from "../../adapters/types.js";
import { HermesError } from "../../config/errors.js";
import { answerUnauthorized, checkAccess, PairingRefusals } from "./access.js";
import { handleAction } from "./actions.js";
import { parseApprovalWord } from "./approvals.js";
import type { AuthVia } from "./authz.js";
import { type CommandContext, findCommand, parseCommand } from "./commands/index.js";
import type { RuntimeCore } from "./core.js";
import { ReplyKeys } from "./egress.js";
import { tellIdle } from "./idle.js";
import type { SessionMailbox } from "./mailbox.js";
import { buildSessionKey } from "./session-key.js";
import { BUSY_ACK, TEXT } from "./texts.js";
import { type Arrival, arrivalSince } from "./turn-stages.js";

export interface PipelineGate {
  /** False until pending events of the previous run were re-dispatched: new events wait in the store. */
  ready(): boolean;
}

export class InboundPipeline implements InboundSink {
  private readonly refusals = new PairingRefusals();

  constructor(
    private readonly core: RuntimeCore,
    private readonly gate: PipelineGate,
  ) {}

  async deliver(event: InboundEvent): Promise<DeliverResult> {
    const receivedAt = performance.now();
    const { core } = this;
    const platform = event.chat.platform;
    if (!core.egress.hasAdapter(platform)) return { status: "ignored", reason: `no adapter for platform ${platform}` };
    // Out of space, an event could be recorded and then not finished: refused at once, the platform (or client) sends it again later.
    const space = core.store.writable();
    if (!space.writable) throw new HermesError("HGW_ERR_STORE_FULL", space.detail);
    const sessionKey = buildSessionKey(event.chat, event.sender, core.keyOptions);
    const rec = core.store.recordInbound({ platform, eventId: event.eventId, sessionKey, payload: JSON.stringify(event), receivedAt: core.clock.now() });
    if (!rec.inserted) {
      core.metrics?.inbound(platform, "duplicate");
      return { status: "duplicate" };
    }
    // Clicks answer a person now; messages wait in the store until recovery has replayed older ones.
    if (event.kind === "message" && !this.gate.ready()) return { status: "accepted" };
    return this.dispatch(rec.id, event, arrivalSince(receivedAt));
  }

  /** Processes a committed event (fresh, with its `arrival`, or replayed after a restart). */
  dispatch(rowId: number, event: InboundEvent, arrival?: Arrival): DeliverResult {
    const platform = event.chat.platform;
    if (event.kind === "action") {
      const result = handleAction(this.core, event);
      this.core.store.markInbound(rowId, "done");
      this.core.metrics?.inbound(platform, "action");
      return result;
    }
    const auth = checkAccess(this.core, event);
    if (!auth.ok || !event.addressed) {
      this.core.store.markInbound(rowId, "ignored");
      this.core.metrics?.inbound(platform, "ignored");
      if (!auth.ok) this.background(answerUnauthorized(this.core, this.refusals, event), event);
      return { status: "ignored", reason: auth.ok ? "not addressed" : "unauthorized" };
    }
    this.core.metrics?.inbound(platform, "accepted");
    this.route(rowId, event, auth.via, arrival);
    return { status: "accepted" };
  }

  private route(rowId: number, event: InboundMessage, via: AuthVia, arrival: Arrival | undefined): void {
    const { core } = this;
    const key = buildSessionKey(event.chat, event.sender, core.keyOptions);
    const mb = core.registry.get(key, event.chat);
    const command = parseCommand(event.text, event.chat.platform);
    if (!command && this.answerUntranscribable(rowId, event)) return;
    if (!command && this.answerPrompt(rowId, event, mb)) return;
    if (command) {
      this.background(this.runCommand(rowId, event, mb, command.name, command.args, via), event);
      return;
    }
    this.post(rowId, event, mb, arrival);
  }

  /** A plain "yes"/"no" while an approval waits, or any text while a question waits, answers it. */
  private answerPrompt(rowId: number, event: InboundMessage, mb: SessionMailbox): boolean {
    const by = { userId: event.sender.userId, displayName: event.sender.displayName };
    if (mb.approvals.pendingCount > 0) {
      const word = parseApprovalWord(event.text);
      if (word) {
        const n = mb.approvals.resolveAll(word === "deny" ? { choice: "deny" } : { choice: word }, by, false);
        const text = word === "deny" ? TEXT.denied(n, null) : TEXT.approved(word, n);
        this.finishWithReply(rowId, event, text);
        return true;
      }
    }
    if (mb.clarify.pendingCount > 0 && mb.clarify.answerText(event.text, by.userId) === "resolved") {
      this.core.store.markInbound(rowId, "done");
      return true;
    }
    return false;
  }

  /** Only voice notes and nothing can transcribe them: say so instead of running a turn on an empty message. */
  private answerUntranscribable(rowId: number, event: InboundMessage): boolean {
    const voiceOnly = event.media.length > 0 && event.media.every((m) => m.kind === "voice") && !event.text.trim();
    const reply = voiceOnly ? this.core.media?.voiceUnavailableReply() : null;
    if (!reply) return false;
    this.finishWithReply(rowId, event, reply);
    return true;
  }

  private post(rowId: number, event: InboundMessage, mb: SessionMailbox, arrival: Arrival | undefined): void {
    const { core } = this;
    const result = mb.post({ rowId, event, text: event.text, ...(arrival ? { arrival } : {}) }, core.settings(event.chat.platform).busyMode);
    if (result.kind === "dropped") {
      this.finishWithReply(rowId, event, TEXT.queueFull(core.config.gateway.busy_queue_max), [event.messageId], "ack");
    } else if ((result.kind === "queued" || result.kind === "steered") && result.ack && core.config.gateway.busy_ack) {
      const keys = ReplyKeys.forEvent(event.chat.platform, event.eventId);
      this.background(core.egress.send(event.chat, { text: BUSY_ACK[result.ack] }, keys.next("ack")), event);
    }
  }

  private async runCommand(rowId: number, event: InboundMessage, mb: SessionMailbox, name: string, args: string, via: AuthVia): Promise<void> {
    const { core } = this;
    const keys = ReplyKeys.forEvent(event.chat.platform, event.eventId);
    const reply = async (text: string, answers?: readonly string[]) => {
      await core.egress.send(event.chat, { text, answers: answers ? [event.messageId, ...answers] : [event.messageId] }, keys.next("command"));
    };
    const spec = findCommand(name);
    const ctx: CommandContext = { core, event, rowId, mailbox: mb, name, args, via, reply };
    // A running turn tells when it is over itself; a command on an idle conversation tells once it is done.
    const wasBusy = mb.busy;
    try {
      if (!spec) await reply(TEXT.unknownCommand(name));
      else if (spec.whileBusy === "refuse" && mb.busy) await reply(TEXT.busyCommand(name));
      else if ((await spec.run(ctx)) === "handed-off") return;
      core.store.markInbound(rowId, "done");
    } catch (err) {
      core.logger.error({ err, command: name }, "command failed");
      core.store.markInbound(rowId, "failed");
      await reply(err instanceof HermesError ? `⚠️ ${err.message}` : `⚠️ /${name} failed; see the gateway log.`);
    }
    if (!wasBusy) tellIdle(core, mb);
  }

  private finishWithReply(
    rowId: number,
    event: InboundMessage,
    text: string,
    answers: readonly string[] = [event.messageId],
    purpose: "ack" | "command" = "command",
  ): void {
    const keys = ReplyKeys.forEvent(event.chat.platform, event.eventId);
    this.core.store.markInbound(rowId, purpose === "ack" ? "dropped" : "done");
    this.background(this.core.egress.send(event.chat, { text, answers }, keys.next(purpose)), event);
  }

  /** Work that outlives `deliver`: failures are logged with the event they belong to. */
  private background(p: Promise<unknown>, event: InboundEvent): void {
    p.catch((err: unknown) => this.core.logger.error({ err, platform: event.chat.platform, eventId: event.eventId }, "inbound processing failed"));
  }
}
