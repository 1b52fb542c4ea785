/**
 * Telling an adapter that a conversation has nothing left to do (Adapter.idle): no turn running or queued, no
 * prompt waiting for a person. The mailbox says so when it drains; a command that ran on an idle conversation
 * says so when it is done.
 */
import type { RuntimeCore } from "./core.js";
import type { SessionMailbox } from "./mailbox.js";

export function tellIdle(core: Pick<RuntimeCore, "egress" | "logger">, mb: SessionMailbox): void {
  const platform = mb.chat.platform;
  if (!mb.isIdle || !core.egress.hasAdapter(platform)) return;
  try {
    core.egress.adapter(platform).idle?.(mb.chat);
  } catch (err) {
    core.logger.warn({ err, platform }, "an adapter's idle() threw (it must not)");
  }
}
