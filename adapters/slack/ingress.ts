/**
 * The bolt app's listeners: message and app_mention events, clicks on the
 * gateway's buttons, and the slash command. Each translates, then delivers
 * to the gateway and resolves only once `deliver` has committed the event:
 * the receiver acknowledges Slack after that. A listener that throws (the
 * gateway could not commit, a file could not be fetched for now) leaves the
 * event unacknowledged, so Slack delivers it again.
 */
import type { App } from "@slack/bolt";
import type { Logger } from "pino";
import { TransientIngressError } from "../common/download.js";
import type { DeliverResult, InboundAction, InboundMessage, InboundSink } from "../types.js";
import type { SlackMessageEvent } from "./gating.js";
import {
  type SlackActionBody,
  type SlackCommandBody,
  type TranslateContext,
  type Translation,
  translateAction,
  translateCommand,
  translateMessage,
} from "./translate.js";

export interface IngressDeps {
  readonly ctx: TranslateContext;
  readonly sink: InboundSink;
  readonly logger: Logger;
  /** The gateway accepted a message (a turn will answer it). Must not throw. */
  onAccepted(event: InboundMessage): void;
  /** What the gateway said about a click, after Slack was acknowledged. Must not throw. */
  onClicked(event: InboundAction, body: SlackActionBody, result: DeliverResult): void;
}

/** The gateway's button ids (approvalActionId, clarifyActionId). */
const GATEWAY_BUTTON = /^(ap|cl):/;

export function registerListeners(app: App, deps: IngressDeps): void {
  const onMessage = async ({ event }: { event: unknown }): Promise<void> => handleMessage(event as SlackMessageEvent, deps);
  app.event("message", onMessage);
  app.event("app_mention", onMessage);
  app.action(GATEWAY_BUTTON, async ({ ack, body }) => {
    const t = translateAction(body as SlackActionBody, deps.ctx);
    if (t.kind === "skip") {
      deps.logger.debug({ reason: t.reason }, "slack click skipped");
      await ack();
      return;
    }
    const result = await deps.sink.deliver(t.event);
    await ack();
    deps.onClicked(t.event as InboundAction, body as SlackActionBody, result);
  });
  app.command(deps.ctx.slashCommand, async ({ ack, command }) => {
    const t = translateCommand(command as SlackCommandBody, deps.ctx);
    if (t.kind === "deliver") await deps.sink.deliver(t.event);
    else deps.logger.debug({ reason: t.reason }, "slack slash command skipped");
    await ack();
  });
  // Listener failures reach the receiver, which then does not acknowledge.
  app.error(async (err) => {
    throw err;
  });
}

async function handleMessage(ev: SlackMessageEvent, deps: IngressDeps): Promise<void> {
  const t = await translateSafely(ev, deps);
  if (t.kind === "skip") {
    deps.logger.debug({ channel: ev.channel, ts: ev.ts, reason: t.reason }, "slack message skipped");
    return;
  }
  const result = await deps.sink.deliver(t.event);
  if (result.status === "accepted" && t.event.kind === "message") deps.onAccepted(t.event);
}

async function translateSafely(ev: SlackMessageEvent, deps: IngressDeps): Promise<Translation> {
  try {
    return await translateMessage(ev, deps.ctx);
  } catch (err) {
    if (err instanceof TransientIngressError) throw err;
    // A malformed event must not come back forever: log it and let it be acknowledged.
    deps.logger.error({ err, channel: ev.channel, ts: ev.ts }, "slack event could not be translated; skipping it");
    return { kind: "skip", reason: "translation failed" };
  }
}
