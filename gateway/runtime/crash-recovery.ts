/**
 * What a start does about the run before it, when that run died (a crash,
 * a kill, a power cut) in the middle of turns. Its unfinished events run
 * again; the question is which of them might be what killed it.
 *
 * The rule: each death is blamed in equal shares on the turns that were
 * running when it came — all of it on a turn that ran alone, a tenth on
 * each of ten. An event whose share reaches MAX_CRASH_BLAME is set aside
 * (marked failed, its chat told once) instead of run again: five deaths
 * while it ran alone, or more beside other turns. Without this, a message
 * whose turn kills the process (memory, a native crash) would kill every
 * restart under systemd, and the messages behind it would never run. A
 * kill from outside (an OOM killer, a deploy, a power cut) cuts off every
 * turn in flight at once, so a busy gateway killed again and again spreads
 * the blame thin and sets nothing aside.
 *
 * The limit: a message that kills the process while other turns always run
 * beside it needs more deaths to be set aside, and a message whose turn ran
 * beside it at every one of them takes the same share.
 */
import type { InboundEvent } from "../../adapters/types.js";
import type { RuntimeCore } from "./core.js";
import { ReplyKeys } from "./egress.js";
import type { ActiveTurn } from "./mailbox.js";
import type { InboundPipeline } from "./pipeline.js";
import { removeLeftPreview } from "./stream-reply.js";
import { TEXT } from "./texts.js";
import { rowIdsOf } from "./turn-input.js";

/**
 * The share of deaths (see the rule above) at which an event is set aside. Kills from outside right after
 * each restart can find a replayed turn running alone a few times in a row; five is more than a burst killed
 * five times ever put on one message, and a message that does kill the process costs five restarts.
 */
export const MAX_CRASH_BLAME = 5;
/** Shares are sums of fractions (1/3 + 1/3 + 1/3): this much short of the limit still reaches it. */
const BLAME_EPSILON = 1e-9;

/**
 * Blames the previous run's death on the events it was working on (see the rule above) and makes them pending
 * again. Call before anything is processed.
 */
export function recoverCrashed(core: Pick<RuntimeCore, "egress" | "logger" | "store">): void {
  // Another process's rows (the chat CLI beside the daemon) are that process's business.
  const cut = core.store.recoverInbound(core.egress.platforms());
  if (cut.events === 0) return;
  core.logger.warn(
    { events: cut.events, turns: cut.turns, share: 1 / cut.turns },
    "the previous run died while turns ran: they run again, each blamed for a share of its death",
  );
}

/** A turn starts: each of its rows is marked as being processed (and counts an attempt). */
export function countAttempt(core: Pick<RuntimeCore, "logger" | "store">, turn: ActiveTurn): void {
  try {
    core.store.startInbound(rowIdsOf(turn.input));
  } catch (err) {
    core.logger.warn({ err, turnId: turn.id }, "could not count a turn attempt");
  }
}

/**
 * Re-dispatches pending inbound rows oldest first, until no new ones appear; sets aside those blamed too much.
 * Rows of a platform without an adapter here are another process's (the chat CLI beside the daemon) or wait
 * until the platform is configured again.
 */
export function replayPending(core: Pick<RuntimeCore, "egress" | "logger" | "store">, pipeline: InboundPipeline, signal?: AbortSignal): void {
  let lastId = 0;
  for (;;) {
    signal?.throwIfAborted();
    const rows = core.store.unfinishedInbound().filter((r) => r.id > lastId && core.egress.hasAdapter(r.platform));
    if (rows.length === 0) return;
    for (const row of rows) {
      lastId = row.id;
      const event = parseEvent(row.payload);
      if (!event) {
        core.logger.error({ rowId: row.id }, "unreadable inbound payload; marked failed");
        core.store.markInbound(row.id, "failed");
      } else if (row.crashBlame >= MAX_CRASH_BLAME - BLAME_EPSILON) {
        setAside(core, row.id, event, row.crashes, row.crashBlame);
      } else {
        pipeline.dispatch(row.id, event);
      }
    }
    core.logger.info({ replayed: rows.length }, "re-dispatched inbound events left pending by the previous run");
  }
}

/**
 * Tells the chat, once (under the event's "error" reply key), that a message was set aside after the process
 * died `crashes` times while its turn ran, and marks it failed.
 */
function setAside(core: Pick<RuntimeCore, "egress" | "logger" | "store">, rowId: number, event: InboundEvent, crashes: number, blame: number): void {
  core.logger.error(
    { rowId, platform: event.chat.platform, eventId: event.eventId, crashes, blame },
    "a message whose turns the process died in again and again is set aside",
  );
  const stale = core.store.journaled(rowId).preview; // read first: marking the row clears its journal
  core.store.markInbound(rowId, "failed");
  if (stale !== undefined) void removeLeftPreview(core, event.chat, stale, { rowId });
  if (event.kind !== "message") return;
  const replyTo = event.chat.chatType !== "dm" ? event.messageId : undefined;
  const key = ReplyKeys.forEvent(event.chat.platform, event.eventId).next("error");
  void core.egress
    .send(event.chat, { text: TEXT.setAside(crashes), answers: [event.messageId], ...(replyTo ? { replyTo } : {}) }, key)
    .catch((err: unknown) => core.logger.warn({ err, rowId }, "could not say that a message was set aside"));
}

function parseEvent(payload: string): InboundEvent | null {
  try {
    const e = JSON.parse(payload) as InboundEvent;
    return e && (e.kind === "message" || e.kind === "action") ? e : null;
  } catch {
    return null;
  }
}
