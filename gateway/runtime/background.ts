/**
 * /background: a prompt run in a session of its own while the chat goes on,
 * its result posted to the chat when done (as Hermes Agent does). Tasks are
 * held in memory: a stop drains them like turns (up to
 * gateway.drain_timeout_s), then interrupts them and says so in their chats.
 */
import { randomBytes } from "node:crypto";
import type { ChatRef } from "../../adapters/types.js";
import type { Clock } from "../../agent/types.js";
import { waitAtMost } from "./clock.js";

export interface BackgroundTask {
  readonly id: string;
  readonly chat: ChatRef;
  readonly prompt: string;
  readonly startedAt: number;
}

interface Running extends BackgroundTask {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

export interface StartTask {
  readonly chat: ChatRef;
  readonly userId: string | null;
  readonly prompt: string;
  /** Idempotency key base of the command that started it: its result is sent once under `<key>:result`. */
  readonly key: string;
}

/** Runs one task and posts its result (or why there is none). Never rejects. */
export type RunTask = (spec: StartTask & { readonly id: string }, signal: AbortSignal) => Promise<void>;

export class BackgroundTasks {
  private readonly running = new Map<string, Running>();
  private closed = false;

  constructor(
    private readonly run: RunTask,
    private readonly clock: Clock,
  ) {}

  /** Tasks running in `chat` (all when omitted), oldest first. */
  list(chat?: ChatRef): BackgroundTask[] {
    return [...this.running.values()].filter(
      (t) => !chat || (t.chat.platform === chat.platform && t.chat.chatId === chat.chatId && t.chat.threadId === chat.threadId),
    );
  }

  get size(): number {
    return this.running.size;
  }

  /** Starts a task; null once the runtime is stopping. */
  start(spec: StartTask): BackgroundTask | null {
    if (this.closed) return null;
    const id = `bg_${randomBytes(4).toString("hex")}`;
    const controller = new AbortController();
    const base = { id, chat: spec.chat, prompt: spec.prompt, startedAt: this.clock.now() };
    const done = this.run({ ...spec, id }, controller.signal).finally(() => this.running.delete(id));
    this.running.set(id, { ...base, controller, done });
    return base;
  }

  /** Refuses new tasks, waits up to `drainMs` for the running ones, then interrupts them. */
  async stop(drainMs: number): Promise<void> {
    this.closed = true;
    const all = [...this.running.values()];
    if (all.length === 0) return;
    await waitAtMost(
      this.clock,
      Promise.all(all.map((t) => t.done)).then(() => undefined),
      drainMs,
    );
    for (const t of this.running.values()) t.controller.abort(new Error("the gateway is stopping"));
    await Promise.all(all.map((t) => t.done));
  }
}
