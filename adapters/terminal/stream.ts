/**
 * A reply streamed to stdout as it is written. The runtime hands over the
 * whole text so far; what extends the printed text is printed. A text that
 * starts afresh (the model's next call after tool calls) begins on a new
 * line: a terminal cannot take back what it printed, so each call's text
 * stays on screen, as it was written.
 */
import type { SentMessage, StreamHandle } from "../types.js";
import type { TerminalPrinter } from "./printer.js";

export class TerminalStream implements StreamHandle {
  #printed = "";
  #closed = false;

  constructor(
    private readonly printer: TerminalPrinter,
    private readonly messageId: string,
    /** Told once the final text is out (the turn's answer reached the person). */
    private readonly onFinish: () => void,
  ) {}

  update(text: string): void {
    if (this.#closed) return;
    this.#show(text);
  }

  async finish(text: string): Promise<SentMessage> {
    this.#closed = true;
    this.#show(text);
    this.printer.endLine();
    this.onFinish();
    return { messageIds: [this.messageId] };
  }

  cancel(): void {
    this.#closed = true;
    this.printer.endLine();
  }

  /** A stale reply (the turn was stopped): what was printed stays, the line is closed. */
  async discard(): Promise<void> {
    this.cancel();
  }

  #show(text: string): void {
    if (text.startsWith(this.#printed)) {
      this.printer.answerPart(text.slice(this.#printed.length));
    } else {
      this.printer.endLine();
      this.printer.answerPart(text);
    }
    this.#printed = text;
  }
}
