/**
 * The output of a child process a test started, kept as it arrives, and waits
 * on it: checked on every chunk of output (no polling), failing at once when
 * the process has closed its output without it, and after a timeout.
 */
import type { ChildProcess } from "node:child_process";

export class ChildOutput {
  private out = "";
  private err = "";
  private closed = false;

  constructor(private readonly child: ChildProcess) {
    child.stdout?.on("data", (d: Buffer) => (this.out += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (this.err += d.toString()));
    child.once("close", () => (this.closed = true));
  }

  stdout(): string {
    return this.out;
  }

  stderr(): string {
    return this.err;
  }

  /**
   * Resolves with what `find` returns once it is not undefined, checked now and after each chunk of output;
   * rejects naming `what`, with both outputs, when the process closes its output first or after `timeoutMs`.
   */
  until<T>(find: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    const now = find();
    if (now !== undefined) return Promise.resolve(now);
    if (this.closed) return Promise.reject(this.failure(what, "the process ended"));
    const { child } = this;
    return new Promise((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stderr?.off("data", onData);
        child.off("close", onClose);
      };
      const fail = (why: string): void => {
        settle();
        reject(this.failure(what, why));
      };
      const onData = (): void => {
        const v = find();
        if (v === undefined) return;
        settle();
        resolve(v);
      };
      const onClose = (): void => {
        const v = find();
        // The failure waits a turn of the event loop: a test racing this wait against the process's exit sees the exit.
        if (v === undefined) return void setImmediate(() => fail("the process ended"));
        settle();
        resolve(v);
      };
      const timer = setTimeout(() => fail(`not within ${timeoutMs} ms`), timeoutMs);
      // Listeners added after the constructor's: the output is appended before `find` looks at it.
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.once("close", onClose);
    });
  }

  private failure(what: string, why: string): Error {
    return new Error(`${what}: ${why}; stdout:\n${this.out}\nstderr:\n${this.err}`);
  }
}
