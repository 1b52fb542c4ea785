/**
 * Runs the real CLI in a child process and collects its output, for tests of
 * startup, signals and exit codes. The child runs the build, dist/gateway/cli.js,
 * as an installation does (test/global-setup.ts builds it when the sources are
 * newer), with plain node: no tsx, so it starts in about a second.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ChildOutput } from "./child-output.js";

/** The built command (package.json's bin). */
export const DIST_CLI = fileURLToPath(new URL("../../dist/gateway/cli.js", import.meta.url));

/** The built command's path; throws, saying what to do, when there is no build. */
export function builtCli(): string {
  if (!existsSync(DIST_CLI)) throw new Error(`${DIST_CLI} is missing: run npm run build (npm test and vitest's global setup build it)`);
  return DIST_CLI;
}

export interface DaemonProcess {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the exit code (or 128+signal number when killed). */
  readonly exited: Promise<number>;
  /** Waits for a JSON log line whose msg matches, and returns it. */
  waitForLog(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

const SIGNALS: Record<string, number> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 };

export function spawnCli(args: readonly string[], env: Record<string, string>): DaemonProcess {
  const child = spawn(process.execPath, [builtCli(), ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", HERMES_LOG_FORMAT: "json", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = new ChildOutput(child);
  const exited = once(child, "exit").then(([code, signal]) => (code ?? 128 + (SIGNALS[signal as string] ?? 0)) as number);
  return {
    child,
    stdout: () => output.stdout(),
    stderr: () => output.stderr(),
    exited,
    waitForLog: (msg, timeoutMs = 20_000) => output.until(() => logLines(output.stdout()).find((rec) => rec.msg === msg), `no log line "${msg}"`, timeoutMs),
  };
}

/** The JSON log records among the complete lines of `out`. */
function logLines(out: string): Record<string, unknown>[] {
  return out
    .split("\n")
    .slice(0, -1)
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
