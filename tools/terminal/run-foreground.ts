/**
 * Runs one command in the foreground: output collected (ANSI stripped,
 * secrets masked, head and tail kept), bounded by a timeout, and stopped —
 * with its whole process group — when the turn is interrupted.
 */
import type { Clock } from "../../agent/types.js";
import type { Redactor } from "../common/redact.js";
import { CappedText, LineCleaner } from "./output.js";
import { terminateGroup } from "./process-group.js";
import { type ChildEnd, childExit, outputClosed, type Shell, spawnInGroup } from "./spawn-shell.js";

export interface ForegroundOptions {
  readonly command: string;
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly shell: Shell;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly redact?: Redactor;
  readonly headChars: number;
  readonly tailChars: number;
  /** SIGTERM → SIGKILL grace. */
  readonly killGraceMs: number;
  /** How long to wait for output pipes after the shell exits. */
  readonly drainMs: number;
}

export interface ForegroundResult {
  readonly output: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly durationMs: number;
  readonly timedOut: boolean;
  readonly interrupted: boolean;
  readonly truncated: boolean;
  readonly totalChars: number;
  /** Something the command started kept its output open after it exited (a stray `&` job). */
  readonly lingering: boolean;
  readonly spawnError?: string;
}

type Stop = "exit" | "timeout" | "interrupt";

export async function runForeground(o: ForegroundOptions, signal: AbortSignal): Promise<ForegroundResult> {
  const started = o.clock.now();
  const cleaner = new LineCleaner(o.redact);
  const out = new CappedText(o.headChars, o.tailChars);
  if (signal.aborted) return result(o, started, out, { code: null, signal: null }, "interrupt", false);
  const child = spawnInGroup(o.shell, o.command, { cwd: o.cwd, ...(o.env ? { env: o.env } : {}) });
  const onData = (chunk: Buffer) => out.append(cleaner.push(chunk));
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = childExit(child);
  const timerCtl = new AbortController();
  let onAbort: () => void = () => undefined;
  const interrupted = new Promise<Stop>((resolve) => {
    onAbort = () => resolve("interrupt");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const timer = o.clock.sleep(o.timeoutMs, timerCtl.signal).then(
      (): Stop => "timeout",
      (): Stop => "exit",
    );
    const stop = await Promise.race([exited.then((): Stop => "exit"), timer, interrupted]);
    if (stop !== "exit" && child.pid !== undefined) await terminateGroup(child.pid, o.killGraceMs);
    const end = await exited;
    const lingering = end.error ? false : await outputClosed(child, exited, o.drainMs);
    out.append(cleaner.flush());
    return result(o, started, out, end, stop, lingering);
  } finally {
    timerCtl.abort();
    signal.removeEventListener("abort", onAbort);
  }
}

function result(o: ForegroundOptions, started: number, out: CappedText, end: ChildEnd, stop: Stop, lingering: boolean): ForegroundResult {
  return {
    output: out.text(),
    exitCode: end.code,
    signal: end.signal,
    durationMs: Math.max(0, o.clock.now() - started),
    timedOut: stop === "timeout",
    interrupted: stop === "interrupt",
    truncated: out.truncated,
    totalChars: out.totalChars,
    lingering,
    ...(end.error ? { spawnError: end.error.message } : {}),
  };
}
