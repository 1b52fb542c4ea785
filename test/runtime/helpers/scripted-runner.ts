/**
 * A TurnRunner driven by a test script, standing in for the agent loop where
 * a test is about the runtime's scheduling rather than the agent. It counts
 * concurrent turns and records every request.
 */
import { type Message, ZERO_USAGE } from "../../../agent/types.js";
import type { TurnRequest, TurnResult, TurnRunner } from "../../../gateway/runtime/ports.js";

export type Script = (req: TurnRequest, signal: AbortSignal) => Promise<TurnResult>;

export const inputText = (req: TurnRequest): string => (typeof req.input.content === "string" ? req.input.content : "");

export function completed(req: TurnRequest, text: string, extra: readonly Message[] = []): TurnResult {
  return {
    status: "completed",
    finalText: text,
    messages: [req.input, ...extra, { role: "assistant", content: text }],
    usage: { ...ZERO_USAGE, input_tokens: 10, output_tokens: 5 },
  };
}

export function aborted(req: TurnRequest): TurnResult {
  return { status: "aborted", finalText: null, messages: [req.input], usage: ZERO_USAGE };
}

/** Resolves after `ms`, or false as soon as the signal aborts. */
export function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Echoes the input after `delayMs`. */
export const echo =
  (delayMs = 0): Script =>
  async (req, signal) =>
    (await wait(delayMs, signal)) ? completed(req, `echo: ${inputText(req)}`) : aborted(req);

export class ScriptedRunner implements TurnRunner {
  readonly calls: TurnRequest[] = [];
  active = 0;
  maxActive = 0;

  constructor(public script: Script = echo()) {}

  async run(req: TurnRequest, signal: AbortSignal): Promise<TurnResult> {
    this.calls.push(req);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      return await this.script(req, signal);
    } finally {
      this.active--;
    }
  }
}
