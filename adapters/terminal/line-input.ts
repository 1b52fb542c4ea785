/**
 * Lines from stdin as a queue that several readers share in turn: the REPL
 * prompt, and the approval and clarify questions asked in the middle of a
 * turn. Lines that arrive early (piped input, type-ahead) wait in order for
 * whichever reader asks next, so a script like "run it\no\n/exit\n" answers
 * the approval with "o".
 */
import type { Interface } from "node:readline";

export interface LineReader {
  /**
   * Shows `prompt` and resolves with the next line; null at end of input or
   * when `signal` aborts (the waiting reader is then removed, so no line is lost).
   */
  ask(prompt: string, signal?: AbortSignal): Promise<string | null>;
}

export interface LineDisplay {
  /** Writes the prompt (readline's own prompt on a terminal, plain text otherwise). */
  prompt(text: string): void;
  /** Shows a line taken from non-echoing input (a pipe), so the transcript reads like a conversation. */
  echo?(line: string): void;
}

interface Waiter {
  readonly prompt: string;
  readonly resolve: (line: string | null) => void;
}

export class LineInput implements LineReader {
  readonly #lines: string[] = [];
  #waiter: Waiter | null = null;
  #closed = false;

  constructor(
    rl: Interface,
    private readonly display: LineDisplay,
  ) {
    rl.on("line", (line) => this.#push(line));
    rl.on("close", () => this.#close());
  }

  get closed(): boolean {
    return this.#closed && this.#lines.length === 0;
  }

  ask(prompt: string, signal?: AbortSignal): Promise<string | null> {
    if (signal?.aborted) return Promise.resolve(null);
    const queued = this.#lines.shift();
    if (queued !== undefined) {
      this.display.prompt(prompt);
      this.display.echo?.(queued);
      return Promise.resolve(queued);
    }
    if (this.#closed) return Promise.resolve(null);
    if (this.#waiter) return Promise.reject(new Error("LineInput: a reader is already waiting"));
    this.display.prompt(prompt);
    return new Promise((resolve) => {
      const onAbort = () => settle(null);
      const settle = (line: string | null) => {
        signal?.removeEventListener("abort", onAbort);
        if (this.#waiter === waiter) this.#waiter = null;
        if (line !== null) this.display.echo?.(line);
        resolve(line);
      };
      const waiter: Waiter = { prompt, resolve: settle };
      this.#waiter = waiter;
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Shows the waiting prompt again (after a notice printed over it). */
  reprompt(): void {
    if (this.#waiter) this.display.prompt(this.#waiter.prompt);
  }

  #push(line: string): void {
    const waiter = this.#waiter;
    if (waiter) waiter.resolve(line);
    else this.#lines.push(line);
  }

  #close(): void {
    this.#closed = true;
    if (this.#lines.length === 0) this.#waiter?.resolve(null);
  }
}
