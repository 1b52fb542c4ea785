/**
 * What a start does about the run before it, when that run died (a crash,
 * a kill, a power cut) in the middle of turns. Its unfinished events run
 * again; the question is which of them might be what killed it.
 *
 * The rule: an event counts a strike only when the process died while its
 * turn was the only turn running. A kill from outside (an OOM killer, a
 * deploy, a power cut), or a crash caused by another turn, cuts off every
 * turn in flight at once, and proves nothing about any one of them; so a
 * burst of work killed again and again loses nothing. An event with
 * MAX_LONE_CRASHES strikes is set aside (marked failed, its chat told once)
 * instead of run again: without this, a message whose turn kills the
 * process (memory, a native crash) would kill every restart under systemd,
 * and the messages behind it would never run.
 *
 * A message that kills the process while other turns run beside it would
 * never be alone at a crash, and so never set aside. So an event cut off by
 * RUN_ALONE_AFTER_CRASHES crashes of any kind runs alone from then on: its
 * turn waits until no other turn runs, and no other turn starts beside it.
 * If it is the culprit, its next crashes are lone ones.
 */
import type { InboundEvent } from "../../adapters/types.js";
import type { RuntimeCore } from "./core.js";
import { ReplyKeys } from "./egress.js";
import type { ActiveTurn } from "./mailbox.js";
import type { InboundPipeline } from "./pipeline.js";
import { removeLeftPreview } from "./stream-reply.js";
import { TEXT } from "./texts.js";
import { rowIdsOf, type TurnInput } from "./turn-input.js";

/** Strikes (crashes while its turn ran alone) after which an event is set aside. */
export const MAX_LONE_CRASHES = 3;
/** Crashes of any kind after which an event's turn runs alone. */
export const RUN_ALONE_AFTER_CRASHES = 2;

/** The events whose turns must run alone (see RUN_ALONE_AFTER_CRASHES). */
export class Loners {
  private readonly rows = new Set<number>();

  add(rowId: number): void {
    this.rows.add(rowId);
  }

  /** The turn holds an event that must run alone. */
  has(input: TurnInput): boolean {
    return this.rows.size > 0 && input.parts.some((p) => this.rows.has(p.rowId));
  }
}

/**
 * Counts the previous run's death against the events it was working on (see the rule above) and makes them
 * pending again. Call before anything is processed.
 */
export function recoverCrashed(core: RuntimeCore): void {
  const cut = core.store.recoverInbound();
  if (cut.events === 0) return;
  const alone = cut.turns === 1;
  core.logger.warn({ events: cut.events, turns: cut.turns, strike: alone }, alone ? "the previous run died while one turn ran: it counts a strike" : "the previous run died while several turns ran: none counts a strike");
}

/** A turn starts: each of its rows is marked as being processed (and counts an attempt). */
export function countAttempt(core: RuntimeCore, turn: ActiveTurn): void {
  try {
    core.store.startInbound(rowIdsOf(turn.input));
  } catch (err) {
    core.logger.warn({ err, turnId: turn.id }, "could not count a turn attempt");
  }
}

/** Re-dispatches pending inbound rows oldest first, until no new ones appear; sets aside those with too many strikes. */
export function replayPending(core: RuntimeCore, pipeline: InboundPipeline, loners: Loners, signal?: AbortSignal): void {
  let lastId = 0;
  for (;;) {
    signal?.throwIfAborted();
    const rows = core.store.unfinishedInbound().filter((r) => r.id > lastId);
    if (rows.length === 0) return;
    for (const row of rows) {
      lastId = row.id;
      const event = parseEvent(row.payload);
      if (!event) {
        core.logger.error({ rowId: row.id }, "unreadable inbound payload; marked failed");
        core.store.markInbound(row.id, "failed");
      } else if (row.loneCrashes >= MAX_LONE_CRASHES) {
        setAside(core, row.id, event, row.loneCrashes);
      } else {
        if (row.crashes >= RUN_ALONE_AFTER_CRASHES) loners.add(row.id);
        pipeline.dispatch(row.id, event);
      }
    }
    core.logger.info({ replayed: rows.length }, "re-dispatched inbound events left pending by the previous run");
  }
}

/**
 * Tells the chat, once (under the event's "error" reply key), that a message was set aside after
 * `strikes` crashes while its turn ran alone, and marks it failed.
 */
function setAside(core: RuntimeCore, rowId: number, event: InboundEvent, strikes: number): void {
  core.logger.error({ rowId, platform: event.chat.platform, eventId: event.eventId, strikes }, "a message whose turn was running alone each time the process died is set aside");
  const stale = core.store.journaled(rowId).preview; // read first: marking the row clears its journal
  core.store.markInbound(rowId, "failed");
  if (stale !== undefined) void removeLeftPreview(core, event.chat, stale, { rowId });
  if (event.kind !== "message") return;
  const replyTo = event.chat.chatType !== "dm" ? event.messageId : undefined;
  const key = ReplyKeys.forEvent(event.chat.platform, event.eventId).next("error");
  void core.egress.send(event.chat, { text: TEXT.setAside(strikes), answers: [event.messageId], ...(replyTo ? { replyTo } : {}) }, key).catch((err: unknown) => core.logger.warn({ err, rowId }, "could not say that a message was set aside"));
}

function parseEvent(payload: string): InboundEvent | null {
  try {
    const e = JSON.parse(payload) as InboundEvent;
    return e && (e.kind === "message" || e.kind === "action") ? e : null;
  } catch {
    return null;
  }
}
