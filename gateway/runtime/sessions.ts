/**
 * Which stored session a session key currently points at, and creating one
 * (with its system prompt built once and frozen in the store) when needed.
 */
import { randomUUID } from "node:crypto";
import type { ChatRef, Sender } from "../../adapters/types.js";
import type { RuntimeCore } from "./core.js";
import { offerHomeChannel } from "./home-notice.js";
import type { SessionInfo } from "./ports.js";
import { platformHint, sessionContextBlock } from "./session-context.js";
import { isSharedSession } from "./session-key.js";
import { homeChannels } from "./targets.js";

export interface CurrentSession {
  readonly session: SessionInfo;
  readonly resumePending: boolean;
}

export function currentSession(core: Pick<RuntimeCore, "store">, key: string): CurrentSession | null {
  const route = core.store.getRoute(key);
  const session = route ? core.store.getSession(route.sessionId) : null;
  return route && session ? { session, resumePending: route.resumePending } : null;
}

export async function ensureSession(core: RuntimeCore, key: string, chat: ChatRef, sender: Sender, signal?: AbortSignal): Promise<CurrentSession> {
  return currentSession(core, key) ?? { session: await createSession(core, key, chat, sender, signal), resumePending: false };
}

/** Starts a fresh session for the key and points the key at it. */
export async function createSession(core: RuntimeCore, key: string, chat: ChatRef, sender: Sender, signal?: AbortSignal): Promise<SessionInfo> {
  const settings = core.settings(chat.platform);
  const connected = core.egress.platforms();
  const homes = homeChannels(core, connected);
  const prompt = await core.prompt.build(
    {
      platform: chat.platform,
      platformHint: platformHint(chat.platform, settings.hint),
      configuredHint: settings.hint,
      sessionContext: sessionContextBlock(chat, sender, isSharedSession(chat, core.keyOptions), homes, connected),
      toolsets: settings.toolsets,
      model: core.config.model.model,
    },
    signal,
  );
  const id = randomUUID();
  const startedAt = core.clock.now();
  core.store.createSession({ id, source: chat.platform, userId: sender.userId || null, model: null, systemPrompt: prompt.text, startedAt });
  core.store.setRoute(key, id);
  core.store.setResumePending(key, false);
  const created = core.store.getSession(id);
  if (!created) throw new Error(`session ${id} vanished right after it was created`);
  offerHomeChannel(core, chat);
  await sendNotices(core, chat, id, prompt.notices);
  return created;
}

/** Tells the chat what its new session's prompt left out; once per notice (keyed by the session), and never failing the session. */
async function sendNotices(core: Pick<RuntimeCore, "egress" | "logger">, chat: ChatRef, sessionId: string, notices: readonly string[]): Promise<void> {
  for (const [i, text] of notices.entries()) {
    const outcome = await core.egress.send(chat, { text }, `${sessionId}:prompt-notice:${i}`);
    if (outcome.status === "failed") core.logger.warn({ sessionId, platform: chat.platform }, "could not send a system-prompt notice");
  }
}

/** Ends the key's current session (if any); the next turn starts a new one. */
export async function resetSession(core: RuntimeCore, key: string, chat: ChatRef, sender: Sender, reason: string): Promise<SessionInfo> {
  const cur = currentSession(core, key);
  if (cur && cur.session.endedAt === null) core.store.endSession(cur.session.id, reason, core.clock.now());
  return createSession(core, key, chat, sender);
}
