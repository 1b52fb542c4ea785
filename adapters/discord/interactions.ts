/**
 * Interactions in: button clicks and slash commands. Discord drops an
 * interaction not answered within 3 seconds, so each is acknowledged first
 * (a deferred update for a click, a deferred reply for a command) and only
 * then delivered to the gateway, however long its store takes. A click
 * becomes an `InboundAction` (the gateway authorizes the clicker again); what
 * the gateway says to the clicker goes back as an ephemeral follow-up only
 * they see. A slash command becomes the same message as the typed command.
 */
import type { ButtonInteraction, ChatInputCommandInteraction, Interaction } from "discord.js";
import type { Logger } from "pino";
import type { DeliverResult, InboundAction, InboundMessage, InboundSink } from "../types.js";
import type { DeferredReplies } from "./deferred.js";
import { CALLBACK, type DiscordOutbound } from "./outbound.js";
import { chatOf, senderOf } from "./translate.js";

export interface InteractionDeps {
  readonly sink: InboundSink;
  readonly out: DiscordOutbound;
  readonly deferred: DeferredReplies;
  readonly logger: Logger;
}

const CLICK_FAILED = "⚠️ This click could not be processed; please try again.";

export class InteractionIngress {
  constructor(private readonly deps: InteractionDeps) {}

  /** Never rejects. */
  async handle(i: Interaction): Promise<void> {
    try {
      if (i.isButton()) await this.click(i);
      else if (i.isChatInputCommand()) await this.command(i);
    } catch (err) {
      this.deps.logger.error({ err, interactionId: i.id }, "discord interaction failed");
    }
  }

  private async click(i: ButtonInteraction): Promise<void> {
    const acked = await this.acknowledge(i, CALLBACK.deferredUpdate);
    const event: InboundAction = {
      kind: "action",
      eventId: i.id,
      chat: chatOf(i.channel, { channelId: i.channelId, inGuild: i.inGuild() }),
      sender: senderOf(i.user, i.member),
      timestamp: i.createdTimestamp,
      actionId: i.customId,
      messageId: i.message.id,
    };
    const result = await this.deliver(event);
    const text = result.status === "action" ? result.reply.text : result.status === "ignored" && result.reason === "failed" ? CLICK_FAILED : undefined;
    if (!acked || !text) return;
    await this.deps.out
      .followUp(i.token, { content: text, ephemeral: true })
      .catch((err: unknown) => this.deps.logger.warn({ err, interactionId: i.id }, "click answer could not be sent"));
  }

  private async command(i: ChatInputCommandInteraction): Promise<void> {
    const acked = await this.acknowledge(i, CALLBACK.deferredReply);
    if (acked) this.deps.deferred.add(i.id, i.token);
    const args = i.options.getString("args") ?? "";
    const event: InboundMessage = {
      kind: "message",
      eventId: i.id,
      chat: chatOf(i.channel, { channelId: i.channelId, inGuild: i.inGuild() }),
      sender: senderOf(i.user, i.member),
      timestamp: i.createdTimestamp,
      messageId: i.id,
      text: `/${i.commandName}${args ? ` ${args}` : ""}`,
      media: [],
      addressed: true,
    };
    const result = await this.deliver(event);
    // Nothing will answer an ignored command (an unauthorized user, a duplicate): the placeholder goes.
    if (result.status !== "accepted" && acked && this.deps.deferred.take([i.id])) {
      await this.deps.out
        .deleteOriginal(i.token)
        .catch((err: unknown) => this.deps.logger.warn({ err, interactionId: i.id }, "command placeholder could not be removed"));
    }
  }

  private async acknowledge(i: Interaction, type: number): Promise<boolean> {
    try {
      await this.deps.out.acknowledge(i.id, i.token, type);
      return true;
    } catch (err) {
      this.deps.logger.warn({ err, interactionId: i.id }, "discord interaction could not be acknowledged (answered too late?)");
      return false;
    }
  }

  private async deliver(event: InboundAction | InboundMessage): Promise<DeliverResult> {
    try {
      return await this.deps.sink.deliver(event);
    } catch (err) {
      this.deps.logger.error({ err, eventId: event.eventId }, "discord interaction could not be committed");
      return { status: "ignored", reason: "failed" };
    }
  }
}
