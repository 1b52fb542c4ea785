/**
 * Notices about a background process, as Hermes Agent sends them, under the
 * gateway's notification mode: `all` posts the new output every
 * `check_interval` seconds while it runs and the final output when it ends,
 * `result` only the end, `error` only an end that failed (a non-zero exit or
 * a process that could not run), `off` nothing. Killed processes (the user
 * or a shutdown asked for it) end silently.
 */
import type { ToolContext } from "../../agent/types.js";
import { completionText } from "./notify-text.js";
import type { RingLog } from "./output.js";
import type { ProcessInfo, ProcessRegistry } from "./processes.js";

export type NotificationMode = "all" | "result" | "error" | "off";

/** Characters of new output a progress notice shows (as in Hermes Agent). */
export const PROGRESS_TAIL_CHARS = 500;
/** The shortest check_interval accepted, in seconds. */
export const MIN_CHECK_INTERVAL_S = 10;

export function progressText(id: string, output: string): string {
  return `[Background process ${id} is still running~ New output:\n${output.slice(-PROGRESS_TAIL_CHARS).replace(/\n+$/, "")}]`;
}

/** Whether the end of `info` is worth a notice under `mode`. */
export function notifiesEnd(mode: NotificationMode, info: ProcessInfo): boolean {
  if (mode === "off" || info.status === "killed") return false;
  if (mode === "error") return info.status === "failed" || (info.exitCode ?? 1) !== 0;
  return true;
}

export interface Watch {
  /** The process ended: stop the progress notices and post the final one when the mode says so. */
  ended(info: ProcessInfo, log: RingLog): void;
}

/**
 * Watches process `id` for `ctx`'s session: progress notices every `intervalS` seconds (mode `all`, when given),
 * and the end notice. Timers run on `ctx.clock` and stop when the process ends.
 */
export function watchProcess(registry: ProcessRegistry, id: () => string, ctx: ToolContext, mode: NotificationMode, intervalS: number | undefined): Watch {
  const stop = new AbortController();
  if (mode === "all" && intervalS !== undefined) void progress(registry, id, ctx, Math.max(intervalS, MIN_CHECK_INTERVAL_S) * 1000, stop.signal);
  return {
    ended(info, log) {
      stop.abort();
      if (notifiesEnd(mode, info)) ctx.notify(completionText(info, log));
    },
  };
}

async function progress(registry: ProcessRegistry, id: () => string, ctx: ToolContext, everyMs: number, signal: AbortSignal): Promise<void> {
  let offset = 0;
  for (;;) {
    try {
      await ctx.clock.sleep(everyMs, signal);
    } catch {
      return; // the process ended
    }
    let read: ReturnType<ProcessRegistry["log"]>;
    try {
      read = registry.log(id(), ctx.sessionKey, offset, 1_000_000);
    } catch {
      return; // no longer held by the registry
    }
    offset = read.to;
    if (read.info.status !== "running") return;
    if (read.text.trim()) ctx.notify(progressText(read.info.id, read.text));
  }
}
