/**
 * Reads a server's stderr so it can never fill the pipe and hang the server,
 * and passes on at most a budget of lines: a token bucket of `linesPerSecond`
 * with a `burst`. Everything over budget is only counted — a flood costs one
 * byte count per chunk, not a split per line. While over budget, reading
 * pauses between chunks, starting at `throttleMs` and doubling while the
 * flood lasts, up to `maxThrottleMs`: a flooding server ends up blocked on a
 * full pipe (about one pipe buffer, 64 KiB, per `maxThrottleMs`) instead of
 * burning CPU in itself, in the worker and in the garbage collector. A server
 * that logs less than a pipe buffer per pause is never blocked, and `hurry()`
 * (a tool call is starting) reads on at once, so a blocked server can answer.
 * Lines and the count of dropped bytes go out in batches, at most one per
 * `batchMs`.
 */
import type { Readable } from "node:stream";

export interface StderrDrainOptions {
  readonly linesPerSecond: number;
  readonly burst: number;
  readonly maxLineChars: number;
  /** How long lines are collected before one batch goes out. */
  readonly batchMs: number;
  /** First pause between chunks once over budget; doubles per chunk while still over budget. */
  readonly throttleMs: number;
  /** Longest pause between chunks. */
  readonly maxThrottleMs: number;
  emit(lines: readonly string[], droppedBytes: number): void;
  now?(): number;
}

export const DEFAULT_STDERR_LIMITS = { linesPerSecond: 20, burst: 100, maxLineChars: 1000, batchMs: 200, throttleMs: 50, maxThrottleMs: 250 } as const;

export class StderrDrain {
  private tokens: number;
  private lastRefill: number;
  private carry = "";
  private pending: string[] = [];
  private dropped = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The next pause while over budget; back to `throttleMs` once a chunk fits the budget. */
  private pauseMs: number;
  private readonly streams = new Set<Readable>();
  private readonly now: () => number;

  constructor(private readonly opts: StderrDrainOptions) {
    this.now = opts.now ?? Date.now;
    this.tokens = opts.burst;
    this.lastRefill = this.now();
    this.pauseMs = opts.throttleMs;
  }

  /** Reads `stream` to its end, throttled while over budget. */
  attach(stream: Readable): void {
    this.streams.add(stream);
    stream.on("data", (chunk: Buffer) => {
      if (this.push(chunk)) return;
      stream.pause();
      // Always resumes (unref'd timers still fire while the worker lives), so a paused pipe never deadlocks.
      setTimeout(() => stream.resume(), this.nextPauseMs()).unref();
    });
    stream.on("end", () => {
      this.streams.delete(stream);
      this.close();
    });
  }

  /**
   * Resumes reading now and starts the pauses over from `throttleMs`: a
   * server blocked writing to a full stderr pipe cannot read a request or
   * write its answer until its pipe is read.
   */
  hurry(): void {
    this.pauseMs = this.opts.throttleMs;
    for (const stream of this.streams) stream.resume();
  }

  /** How long to pause reading now that a chunk went over budget; each call in a row doubles it, up to the cap. */
  nextPauseMs(): number {
    const pause = this.pauseMs;
    this.pauseMs = Math.min(this.opts.maxThrottleMs, pause * 2);
    return pause;
  }

  /** Takes one chunk; false when the budget is exhausted (the caller should slow down). */
  push(chunk: Buffer | string): boolean {
    this.refill();
    if (this.tokens < 1) {
      this.dropped += chunk.length;
      this.carry = "";
      this.schedule();
      return false;
    }
    const text = this.carry + (typeof chunk === "string" ? chunk : chunk.toString("utf8"));
    const parts = text.split("\n");
    this.carry = (parts.pop() ?? "").slice(0, this.opts.maxLineChars);
    for (const raw of parts) {
      const line = raw.replace(/\r$/, "");
      if (line.length === 0) continue;
      if (this.tokens < 1) {
        this.dropped += Buffer.byteLength(raw) + 1;
        continue;
      }
      this.tokens -= 1;
      this.pending.push(line.length > this.opts.maxLineChars ? `${line.slice(0, this.opts.maxLineChars)}…` : line);
    }
    this.schedule();
    if (this.tokens < 1) return false;
    this.pauseMs = this.opts.throttleMs;
    return true;
  }

  /** Emits whatever is pending (including a final partial line and the drop count) and stops the timer. */
  close(): void {
    if (this.carry) this.pending.push(this.carry);
    this.carry = "";
    this.flush();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.opts.burst, this.tokens + ((t - this.lastRefill) / 1000) * this.opts.linesPerSecond);
    this.lastRefill = t;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.opts.batchMs);
    this.timer.unref();
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length > 0 || this.dropped > 0) this.opts.emit(this.pending, this.dropped);
    this.pending = [];
    this.dropped = 0;
  }
}
