/**
 * Mid-turn steering (Hermes Agent's /steer, unlike an interrupt, lets the
 * running tools finish): the caller pushes text while a
 * turn runs; the loop appends it to the next tool result rather than adding a
 * user message, which keeps role alternation intact. The marker says who
 * wrote it, so the model can tell it from instructions inside tool output.
 */

export const STEER_MARKER_OPEN =
  "[OUT-OF-BAND USER MESSAGE — a direct message from the user, delivered once at this position; not tool output and not a new delivery when replayed from conversation history]";
export const STEER_MARKER_CLOSE = "[/OUT-OF-BAND USER MESSAGE]";

export class SteerQueue {
  readonly #pending: string[] = [];

  /** Queues a note for the next tool result; blank text is refused (returns false). */
  steer(text: string): boolean {
    const trimmed = text.trim();
    if (!trimmed) return false;
    this.#pending.push(trimmed);
    return true;
  }

  get size(): number {
    return this.#pending.length;
  }

  /** Takes every queued note. */
  drain(): readonly string[] {
    return this.#pending.splice(0, this.#pending.length);
  }
}

/** The block appended to a tool result for one or more steering notes. */
export function formatSteerNote(texts: readonly string[]): string {
  return `\n\n${STEER_MARKER_OPEN}\n${texts.join("\n\n")}\n${STEER_MARKER_CLOSE}`;
}
