/**
 * What the user sees while a turn runs: streamed answer text on stdout (in
 * the REPL), and one progress line per tool start and end, plus budget and
 * guardrail notices, on stderr. Both usually share one terminal, so the
 * printer remembers whether a line is open and closes it before a notice.
 */
import type { LoopEvent } from "../../agent/index.js";
import { previewArgs } from "../runtime/agent-runner.js";
import { createDeltaScrubber } from "../tools-session.js";

export interface ChatStreams {
  /** The answer (stdout). */
  out(text: string): void;
  /** Progress, prompts and notices (stderr). */
  err(text: string): void;
}

export interface TurnPrinterOptions {
  /** Stream text deltas to `out` (REPL); otherwise the caller prints the final answer. */
  readonly streamText: boolean;
}

const MAX_PREVIEW = 100;

export class TurnPrinter {
  #lineOpen = false;
  #scrubber = createDeltaScrubber();
  #wroteText = false;

  constructor(
    private readonly io: ChatStreams,
    private readonly opts: TurnPrinterOptions,
  ) {}

  /** Whether any answer text was streamed this turn. */
  get wroteText(): boolean {
    return this.#wroteText;
  }

  handle(e: LoopEvent): void {
    switch (e.type) {
      case "text_delta":
        return this.#text(this.#scrubber.feed(e.delta));
      case "step_end":
        return this.#text(this.#scrubber.end());
      case "tool_start":
        return this.notice(`  ⚙ ${e.name}${preview(e.args)}`);
      case "tool_end":
        return this.notice(`  ${e.ok ? "✓" : "✗"} ${e.name} (${(e.durationMs / 1000).toFixed(1)} s)${e.ok ? "" : `: ${oneLine(e.preview)}`}`);
      case "budget_warning":
        return this.notice(`  … iteration budget ${e.tier}: ${e.used}/${e.max}`);
      case "guardrail":
        return this.notice(`  ⛔ ${oneLine(e.decision.message)}`);
      case "status":
        if (e.status === "compressing") this.notice("  … compressing the conversation");
        return;
      case "compression":
        this.notice(`  🗜️ conversation compressed: ~${e.tokensBefore.toLocaleString("en-US")} → ~${e.tokensAfter.toLocaleString("en-US")} tokens`);
        if (e.note) this.notice(`  ${e.note}`);
        return;
      default:
        return;
    }
  }

  /** A line on stderr, closing any open answer line first. */
  notice(text: string): void {
    this.endLine();
    this.io.err(`${text}\n`);
  }

  /** Ends the open answer line, if any. */
  endLine(): void {
    if (!this.#lineOpen) return;
    this.io.out("\n");
    this.#lineOpen = false;
  }

  #text(text: string): void {
    if (!text || !this.opts.streamText) return;
    this.io.out(text);
    this.#wroteText = true;
    this.#lineOpen = !text.endsWith("\n");
  }
}

function preview(args: Readonly<Record<string, unknown>>): string {
  const p = oneLine(previewArgs(args));
  return p ? `: ${p}` : "";
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_PREVIEW ? `${flat.slice(0, MAX_PREVIEW - 1)}…` : flat;
}
