/**
 * Runs the real CLI in a child process (through tsx, so no build is needed)
 * and collects its output, for tests of startup, signals and exit codes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../gateway/cli.ts", import.meta.url));

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
  const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", HERMES_LOG_FORMAT: "json", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exited = once(child, "exit").then(([code, signal]) => (code ?? 128 + (SIGNALS[signal as string] ?? 0)) as number);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitForLog(msg, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        for (const line of out.split("\n")) {
          if (!line.startsWith("{")) continue;
          const rec = JSON.parse(line) as Record<string, unknown>;
          if (rec.msg === msg) return rec;
        }
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`no log line "${msg}"; stdout:\n${out}\nstderr:\n${err}`);
    },
  };
}
