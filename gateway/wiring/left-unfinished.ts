/**
 * The terminal's messages that earlier `chat` runs left unfinished: a chat
 * killed mid-turn leaves its message pending or processing in the store, and
 * nothing would ever run it again — chat takes over nothing an earlier run
 * left (whoever typed it left with that process), and the daemon has no
 * terminal. Each chat start closes them as "interrupted", their turn journals
 * with them, so they do not pile up as unfinished work. A chat running beside
 * this one may be working on one of them: its turn marks the message again
 * when it ends (done, failed, stopped), so closing it here changes nothing
 * that chat does.
 */
import type { Logger } from "pino";
import type { Store } from "../store/index.js";

/** Closes `platform`'s unfinished messages; returns how many. */
export function closeLeftUnfinished(store: Store, platform: string, logger: Logger): number {
  const left = store.inbound.unfinished().filter((r) => r.platform === platform);
  if (left.length === 0) return 0;
  store.transaction(() => {
    for (const row of left) {
      store.inbound.mark(row.id, "interrupted");
      store.journal.clear(row.id);
    }
  });
  logger.info({ messages: left.length }, "closed the messages earlier chat runs left unfinished (interrupted)");
  return left.length;
}
