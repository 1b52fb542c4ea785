/**
 * The restart notice. A restart (/restart, or SIGUSR1 from a supervisor)
 * leaves a gateway mark; the next start finds it and, with
 * gateway.restart_notification on, tells each home channel (and the chat
 * that asked) that the gateway is back — once: each notice goes under a key
 * made from the mark, and the mark goes after them.
 */
import type { ChatRef } from "../../adapters/types.js";
import type { RuntimeCore } from "./core.js";
import { isConnected } from "./deliver.js";
import { homeChannel, targetOf } from "./targets.js";
import { TEXT } from "./texts.js";

const MARK = "restart";

interface RestartMark {
  readonly at: number;
  /** The chat /restart came from. */
  readonly chat?: ChatRef;
}

/** Notes that the gateway is restarting (`chat`: who asked). A mark already naming a chat is kept. */
export function noteRestart(core: Pick<RuntimeCore, "clock" | "logger" | "store">, chat?: ChatRef): void {
  try {
    const prev = core.store.getMark(MARK) as RestartMark | undefined;
    if (prev?.chat && !chat) return;
    core.store.setMark(MARK, { at: core.clock.now(), ...(chat ? { chat } : {}) } satisfies RestartMark);
  } catch (err) {
    core.logger.warn({ err }, "could not note the restart; no notice will say the gateway is back");
  }
}

/** After a start: the notice a noted restart asked for, then the mark goes. Never rejects. */
export async function announceRestart(core: Pick<RuntimeCore, "config" | "egress" | "logger" | "store">): Promise<void> {
  let mark: RestartMark | undefined;
  try {
    mark = core.store.getMark(MARK) as RestartMark | undefined;
    if (!mark) return;
    if (core.config.gateway.restart_notification) await Promise.all(restartChats(core, mark).map((chat) => tell(core, chat, mark as RestartMark)));
    core.store.deleteMark(MARK);
  } catch (err) {
    core.logger.warn({ err }, "could not send the restart notice");
  }
}

/** The chat that asked, then every home channel; each once. */
function restartChats(core: Pick<RuntimeCore, "config" | "egress" | "store">, mark: RestartMark): ChatRef[] {
  const chats: ChatRef[] = [];
  for (const chat of [mark.chat, ...core.egress.platforms().map((p) => homeChannel(core, p))]) {
    if (chat && !chats.some((c) => targetOf(c) === targetOf(chat))) chats.push(chat);
  }
  return chats;
}

async function tell(core: Pick<RuntimeCore, "egress" | "logger">, chat: ChatRef, mark: RestartMark): Promise<void> {
  if (!isConnected(core, chat.platform)) {
    core.logger.warn({ platform: chat.platform }, "restart notice not sent: the platform is not connected");
    return;
  }
  await core.egress.send(chat, { text: TEXT.restarted }, `restart:${mark.at}:${targetOf(chat)}`, AbortSignal.timeout(30_000));
}
