/**
 * The session notification sent when a background process finishes
 * in the wording of Hermes Agent's gateway, with the last
 * ~2000 characters of output snapped to a line start.
 */
import type { RingLog } from "./output.js";
import type { ProcessInfo } from "./processes.js";

/** Characters of output included in the completion notice (Hermes Agent's `_LIMIT`). */
export const COMPLETION_TAIL_CHARS = 2000;

export function completionText(info: ProcessInfo, log: RingLog): string {
  const { text, truncated } = log.tail(COMPLETION_TAIL_CHARS);
  const body = truncated ? `[… output truncated — showing last ${text.length} chars]\n${text}` : text;
  const code = info.exitCode ?? info.signal ?? "unknown";
  return `[Background process ${info.id} finished with exit code ${code}~ Here's the final output:\n${body.replace(/\n+$/, "")}]`;
}
