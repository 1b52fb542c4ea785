/**
 * The wizard's questions. Each has a flag: a value given as a flag is used
 * without asking; with --non-interactive nothing is asked and every question
 * takes its default (what is set now), as pressing Enter would.
 *
 * Lines are read from the terminal (secrets without echo) or from a pipe, one
 * answer per line; answers that arrive before their question wait for it.
 */
import { createInterface, type Interface } from "node:readline";
import { type Readable, Writable } from "node:stream";

/** The input ended (or Ctrl-C) before every question had an answer. */
export class SetupCancelled extends Error {
  constructor() {
    super("setup cancelled: the input ended before every question had an answer (nothing was written; scripts use --non-interactive and flags)");
  }
}

export interface Prompter {
  /** The answer, trimmed; an empty answer gives `fallback`. */
  ask(question: string, opts?: { readonly fallback?: string; readonly secret?: boolean }): Promise<string>;
  close(): void;
}

export function linePrompter(input: Readable & { isTTY?: boolean }, output: NodeJS.WritableStream): Prompter {
  const tty = input.isTTY === true;
  let muted = false;
  // Readline echoes what is typed to its output: a secret's echo goes nowhere.
  const echo = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (!muted) output.write(chunk);
      done();
    },
  });
  const rl: Interface = createInterface({ input, output: echo, terminal: tty });
  const lines: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let ended = false;
  rl.on("line", (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else lines.push(line);
  });
  rl.on("close", () => {
    ended = true;
    for (const w of waiting.splice(0)) w(null);
  });
  rl.on("SIGINT", () => rl.close());
  const nextLine = (): Promise<string | null> => {
    const line = lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    return ended ? Promise.resolve(null) : new Promise((resolve) => waiting.push(resolve));
  };
  return {
    async ask(question, opts = {}) {
      const shown = opts.fallback && !opts.secret ? `${question} [${opts.fallback}]: ` : `${question}: `;
      if (opts.secret && tty) {
        output.write(shown);
        muted = true;
      } else {
        rl.setPrompt(shown);
        rl.prompt();
      }
      const line = await nextLine();
      if (muted) {
        muted = false;
        output.write("\n");
      }
      if (line === null) throw new SetupCancelled();
      return line.trim() || (opts.fallback ?? "");
    },
    close: () => rl.close(),
  };
}

/** Flags first, then the person (or, non-interactive, the default). */
export class Answers {
  constructor(private readonly prompter: Prompter | null) {}

  get interactive(): boolean {
    return this.prompter !== null;
  }

  async text(flag: string | undefined, question: string, opts: { readonly fallback?: string; readonly secret?: boolean } = {}): Promise<string> {
    if (flag !== undefined) return flag.trim();
    if (!this.prompter) return opts.fallback ?? "";
    return this.prompter.ask(question, opts);
  }

  /** A yes/no question; non-interactive, `fallback`. */
  async yes(question: string, fallback: boolean): Promise<boolean> {
    if (!this.prompter) return fallback;
    const a = (await this.prompter.ask(`${question} (${fallback ? "Y/n" : "y/N"})`)).toLowerCase();
    return a === "" ? fallback : a === "y" || a === "yes";
  }
}
