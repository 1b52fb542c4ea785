/**
 * What the terminal shows. The agent's answer goes to stdout; progress,
 * prompts and everything the gateway says itself go to stderr. Both usually
 * share one screen, so the printer remembers whether an answer line is open
 * on stdout and closes it before anything is written to stderr.
 */
import type { TurnProgress } from "../types.js";

export interface TerminalStreams {
  /** The answer (stdout). */
  out(text: string): void;
  /** Progress, prompts and notices (stderr). */
  err(text: string): void;
}

const MAX_PREVIEW = 100;

export class TerminalPrinter {
  #lineOpen = false;

  constructor(private readonly io: TerminalStreams) {}

  /** Answer text as it is written; `text` may end mid-line. */
  answerPart(text: string): void {
    if (!text) return;
    this.io.out(text);
    this.#lineOpen = !text.endsWith("\n");
  }

  /** A whole answer, on lines of its own. */
  answer(text: string): void {
    this.endLine();
    this.answerPart(text);
    this.endLine();
  }

  /** A line (or several) on stderr, closing any open answer line first. */
  notice(text: string): void {
    this.endLine();
    this.io.err(text.endsWith("\n") ? text : `${text}\n`);
  }

  /** Ends the open answer line, if any. */
  endLine(): void {
    if (!this.#lineOpen) return;
    this.io.out("\n");
    this.#lineOpen = false;
  }

  progress(p: TurnProgress): void {
    this.notice(progressLine(p));
  }
}

export function progressLine(p: TurnProgress): string {
  switch (p.kind) {
    case "tool_start":
      return `  ⚙ ${p.tool}${p.preview.trim() ? `: ${oneLine(p.preview)}` : ""}`;
    case "tool_end":
      return `  ${p.ok ? "✓" : "✗"} ${p.tool} (${(p.durationMs / 1000).toFixed(1)} s)${p.ok ? "" : `: ${oneLine(p.preview)}`}`;
    case "compressing":
      return "  … compressing the conversation";
    case "compressed":
      return `  🗜️ conversation compressed: ~${p.tokensBefore.toLocaleString("en-US")} → ~${p.tokensAfter.toLocaleString("en-US")} tokens`;
    case "budget":
      return `  … iteration budget ${p.tier}: ${p.used}/${p.max}`;
    case "guardrail":
      return `  ⛔ ${oneLine(p.message)}`;
  }
}

export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_PREVIEW ? `${flat.slice(0, MAX_PREVIEW - 1)}…` : flat;
}
