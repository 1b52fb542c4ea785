/**
 * The step between a turn's start and the agent: its attachments go through
 * the media preparer (vision, speech-to-text) and the prepared renderings
 * ride on the turn's input parts, where turn-input builds the user message
 * from them.
 */
import type { RuntimeCore } from "./core.js";
import type { ActiveTurn, SessionMailbox } from "./mailbox.js";
import { currentSession, ensureSession } from "./sessions.js";
import { hasMedia, replyChat, senderOf } from "./turn-input.js";
import { NO_TYPING, startTyping } from "./typing.js";

/** Prepares the running turn's attachments in place. Never rejects: without a result the plain notes are used. */
export async function prepareTurnMedia(core: RuntimeCore, mb: SessionMailbox, turn: ActiveTurn): Promise<void> {
  const media = core.media;
  const chat = replyChat(turn.input);
  // Without an adapter the turn cannot run: executeTurn fails it.
  if (!media || !hasMedia(turn.input) || !core.egress.hasAdapter(chat.platform)) return;
  const adapter = core.egress.adapter(chat.platform);
  // Descriptions and transcriptions take seconds: show that the bot is on it.
  const typing =
    core.settings(chat.platform).typing && adapter.capabilities.typing ? startTyping((s) => adapter.typing(chat, s), core.clock, core.logger) : NO_TYPING;
  try {
    const model = await sessionModel(core, mb, turn);
    const parts = turn.input.parts;
    const prepared = await media.prepare(
      parts.map((p) => (p.verbatim ? [] : p.event.media)),
      { model },
      turn.controller.signal,
    );
    // The turn is running: nothing merges into its input any more, so the snapshot is still the input.
    turn.input = { parts: parts.map((p, i) => (prepared[i] && !p.verbatim ? { ...p, prepared: prepared[i] } : p)) };
  } catch (err) {
    core.logger.error({ err, sessionKey: mb.key }, "media preparation failed (it must not reject); the agent gets plain file notes");
  } finally {
    typing.stop();
  }
}

/**
 * The session's own model override, if it has one. A new session is created
 * here, before the slow media step and without the turn's signal: a follow-up
 * that interrupts the turn meanwhile must not leave the turn building its
 * system prompt with an aborted signal (which fails instead of ending quietly).
 */
async function sessionModel(core: RuntimeCore, mb: SessionMailbox, turn: ActiveTurn): Promise<string | null> {
  if (mb.sessionCache) return mb.sessionCache.session.model;
  const cur = currentSession(core, mb.key) ?? (await ensureSession(core, mb.key, replyChat(turn.input), senderOf(turn.input)));
  return cur.session.model;
}
