/**
 * Graceful stop, as in Hermes Agent's gateway: refuse new turns, let running turns finish
 * within gateway.drain_timeout_s, then tell each chat whose turn is cut off,
 * mark its session resume_pending (its next message carries a resume note)
 * and interrupt. Queued messages stay pending in the store and are processed
 * after the next start.
 */
import type { RuntimeCore } from "./core.js";
import type { ActiveTurn } from "./mailbox.js";
import { TEXT } from "./texts.js";
import { DETACH_GRACE_MS } from "./turn.js";

/** The set of running turns, with a way to wait until it is empty. */
export class TurnTracker {
  private readonly running = new Set<ActiveTurn>();
  private waiters: (() => void)[] = [];
  private startedCount = 0;

  get size(): number {
    return this.running.size;
  }

  /** Turns started since the runtime was built (never decreases). */
  get started(): number {
    return this.startedCount;
  }

  async track(turn: ActiveTurn, work: Promise<void>): Promise<void> {
    this.startedCount++;
    this.running.add(turn);
    try {
      await work;
    } finally {
      this.running.delete(turn);
      if (this.running.size === 0) for (const w of this.waiters.splice(0)) w();
    }
  }

  /** Resolves true once no turn runs, false if `ms` passes first. */
  idle(ms: number): Promise<boolean> {
    if (this.running.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, ms);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(done);
    });
  }
}

const NOTICE_TIMEOUT_MS = 5000;

export async function drainAndInterrupt(
  core: Pick<RuntimeCore, "config" | "egress" | "logger" | "registry" | "store">,
  tracker: TurnTracker,
  reason: "shutdown" | "restart",
): Promise<void> {
  const boxes = core.registry.all();
  for (const mb of boxes) {
    mb.close();
    // Not started yet: its rows stay pending and run after the next start.
    if (mb.current?.phase === "waiting") mb.abortCurrent("shutdown");
  }
  const drained = await tracker.idle(core.config.gateway.drain_timeout_s * 1000);
  if (drained) return;
  const cut = boxes.filter((mb) => mb.current && mb.current.phase !== "waiting" && !mb.current.abortReason);
  core.logger.warn({ sessions: cut.length, reason }, "drain timeout: interrupting running turns");
  const notified = new Set<string>();
  const notices: Promise<unknown>[] = [];
  for (const mb of cut) {
    core.store.setResumePending(mb.key, true);
    const chat = mb.chat;
    const where = `${chat.platform}:${chat.chatId}:${chat.threadId ?? ""}`;
    if (core.config.gateway.restart_notification && !notified.has(where)) {
      notified.add(where);
      notices.push(core.egress.send(chat, { text: reason === "restart" ? TEXT.restarting : TEXT.shuttingDown }, null, AbortSignal.timeout(NOTICE_TIMEOUT_MS)));
    }
    mb.abortCurrent("shutdown");
  }
  await Promise.all(notices);
  if (!(await tracker.idle(DETACH_GRACE_MS + 1000))) core.logger.error({ running: tracker.size }, "turns still running after shutdown interrupt");
}
