/**
 * The terminal asks one question at a time: approval and clarify prompts that
 * arrive together (tool calls run in parallel) wait in order. A prompt is
 * open from when it arrives until it is answered here or closed from outside
 * (decided elsewhere, timed out, its turn over).
 */

export interface PromptJob {
  /** The id the prompt was sent under (what the runtime names when it closes it). */
  readonly messageId: string;
  /** Epoch ms it arrived: the runtime's timeout runs from then. */
  readonly openedAt: number;
  /** Asks and delivers the answer; resolves early when `signal` aborts (the prompt was closed). */
  run(signal: AbortSignal): Promise<void>;
}

interface Entry {
  readonly job: PromptJob;
  readonly controller: AbortController;
}

export class PromptQueue {
  readonly #waiting: Entry[] = [];
  #current: Entry | null = null;
  #pumping = false;
  #settled: (() => void)[] = [];

  constructor(private readonly onError: (err: unknown) => void) {}

  add(job: PromptJob): void {
    this.#waiting.push({ job, controller: new AbortController() });
    void this.#pump();
  }

  /** Closes prompt `messageId`, asked or waiting; returns it, or null when it is not open (answered already). */
  close(messageId: string): PromptJob | null {
    if (this.#current?.job.messageId === messageId) {
      const { job, controller } = this.#current;
      this.#current = null;
      controller.abort();
      return job;
    }
    const i = this.#waiting.findIndex((e) => e.job.messageId === messageId);
    if (i < 0) return null;
    return this.#waiting.splice(i, 1)[0]?.job ?? null;
  }

  /** Closes every open prompt (nothing waits for an answer any more). */
  closeAll(): void {
    this.#waiting.splice(0);
    this.#current?.controller.abort();
    this.#current = null;
  }

  /** Resolves once no prompt is open or waiting. */
  settled(): Promise<void> {
    if (!this.#pumping) return Promise.resolve();
    return new Promise((resolve) => this.#settled.push(resolve));
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      for (let next = this.#waiting.shift(); next; next = this.#waiting.shift()) {
        this.#current = next;
        try {
          await next.job.run(next.controller.signal);
        } catch (err) {
          this.onError(err);
        }
        if (this.#current === next) this.#current = null;
      }
    } finally {
      this.#pumping = false;
      for (const resolve of this.#settled.splice(0)) resolve();
    }
  }
}
