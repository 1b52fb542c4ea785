/**
 * The shape of a gateway command. A command runs out of band — it never waits
 * behind the session's queue — and either finishes its inbound row itself or
 * hands the row to the mailbox as a turn.
 */
import type { InboundMessage } from "../../../adapters/types.js";
import type { AuthVia } from "../authz.js";
import type { RuntimeCore } from "../core.js";
import type { SessionMailbox } from "../mailbox.js";

export interface CommandContext {
  readonly core: RuntimeCore;
  readonly event: InboundMessage;
  readonly rowId: number;
  readonly mailbox: SessionMailbox;
  readonly name: string;
  readonly args: string;
  readonly via: AuthVia;
  /** Replies in the chat, at most once per (event, reply index) across restarts. */
  reply(text: string, answers?: readonly string[]): Promise<void>;
}

/** done: the row is finished; handed-off: a turn now owns the row. */
export type CommandOutcome = "done" | "handed-off";

export interface CommandSpec {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly args?: string;
  readonly description: string;
  /** refuse: answered with the busy notice while a turn runs or is queued. */
  readonly whileBusy: "run" | "refuse";
  run(ctx: CommandContext): Promise<CommandOutcome>;
}
