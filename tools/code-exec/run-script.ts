/**
 * Runs the script's interpreter as the leader of its own process group, with
 * stdin closed, stdout and stderr captured (secrets masked, head and tail
 * kept), bounded by a timeout; a timeout or an interrupted turn kills the
 * whole group (SIGTERM, then SIGKILL), so nothing the script started
 * survives it.
 */
import { spawn } from "node:child_process";
import type { Clock } from "../../agent/types.js";
import type { Redactor } from "../common/redact.js";
import { CappedText, LineCleaner } from "../terminal/output.js";
import { terminateGroup } from "../terminal/process-group.js";
import { childExit, outputClosed } from "../terminal/spawn-shell.js";

export interface ScriptRun {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly maxStdout: number;
  readonly maxStderr: number;
  readonly killGraceMs: number;
  readonly redact?: Redactor | undefined;
}

export interface ScriptOutcome {
  readonly stop: "exit" | "timeout" | "interrupt";
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly spawnError?: string;
}

/** How long to wait for output pipes once the interpreter is gone (a process it left behind may hold them). */
const DRAIN_MS = 1000;

export async function runScript(o: ScriptRun, signal: AbortSignal): Promise<ScriptOutcome> {
  const out = { clean: new LineCleaner(o.redact), text: new CappedText(Math.floor(o.maxStdout / 3), o.maxStdout - Math.floor(o.maxStdout / 3)) };
  const err = { clean: new LineCleaner(o.redact), text: new CappedText(Math.floor(o.maxStderr / 4), o.maxStderr - Math.floor(o.maxStderr / 4)) };
  if (signal.aborted) return { stop: "interrupt", exitCode: null, signal: null, stdout: "", stderr: "", stdoutTruncated: false };
  const child = spawn(o.command, [...o.args], { cwd: o.cwd, env: o.env, detached: true, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
  child.stdout?.on("data", (c: Buffer) => out.text.append(out.clean.push(c)));
  child.stderr?.on("data", (c: Buffer) => err.text.append(err.clean.push(c)));
  const exited = childExit(child);
  const timer = new AbortController();
  let onAbort: () => void = () => {};
  const interrupted = new Promise<"interrupt">((resolve) => {
    onAbort = () => resolve("interrupt");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const timeout = o.clock.sleep(o.timeoutMs, timer.signal).then(
      () => "timeout" as const,
      () => "exit" as const,
    );
    const stop = await Promise.race([exited.then(() => "exit" as const), timeout, interrupted]);
    if (stop !== "exit" && child.pid !== undefined) await terminateGroup(child.pid, o.killGraceMs);
    const end = await exited;
    if (!end.error) await outputClosed(child, exited, DRAIN_MS);
    out.text.append(out.clean.flush());
    err.text.append(err.clean.flush());
    return {
      stop,
      exitCode: end.code,
      signal: end.signal,
      stdout: out.text.text(),
      stderr: err.text.text(),
      stdoutTruncated: out.text.truncated,
      ...(end.error ? { spawnError: end.error.message } : {}),
    };
  } finally {
    timer.abort();
    signal.removeEventListener("abort", onAbort);
  }
}
