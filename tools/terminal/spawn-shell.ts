/**
 * Starting a command line in a shell, as the leader of a new process group.
 * `bash -lc` when bash exists (login shell: the user's PATH and profile),
 * else `/bin/sh -c`. stdin is closed so a prompt fails instead of hanging.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { access, constants } from "node:fs/promises";

export interface Shell {
  readonly path: string;
  /** Arguments that run `command` (`-lc` for bash, `-c` otherwise). */
  readonly flags: readonly string[];
}

const BASH_CANDIDATES = ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"];

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The shell to run commands with; `preferred` (absolute path) wins when executable. */
export async function findShell(preferred?: string): Promise<Shell> {
  if (preferred && (await executable(preferred))) return { path: preferred, flags: preferred.endsWith("bash") ? ["-lc"] : ["-c"] };
  for (const path of BASH_CANDIDATES) if (await executable(path)) return { path, flags: ["-lc"] };
  return { path: "/bin/sh", flags: ["-c"] };
}

export interface SpawnOptions {
  readonly cwd: string;
  /** Environment for the command; when absent the child inherits the gateway's (the gateway should pass a scrubbed one). */
  readonly env?: NodeJS.ProcessEnv;
}

/** Spawns `command` detached (own process group) with stdout and stderr piped. */
export function spawnInGroup(shell: Shell, command: string, opts: SpawnOptions): ChildProcess {
  return spawn(shell.path, [...shell.flags, command], {
    cwd: opts.cwd,
    ...(opts.env ? { env: opts.env } : {}),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    windowsHide: true,
  });
}

export interface ChildEnd {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly error?: Error;
}

/** Resolves when the child exits or fails to start. */
export function childExit(child: ChildProcess): Promise<ChildEnd> {
  return new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
  });
}

/**
 * Resolves when the child's output pipes close, or `drainMs` after `exited`
 * if something it left running still holds them (the pipes are then
 * released so the caller does not wait on a stray background job).
 * Returns true when output was cut off that way.
 */
export async function outputClosed(child: ChildProcess, exited: Promise<ChildEnd>, drainMs: number): Promise<boolean> {
  const closed = new Promise<void>((resolve) => {
    if (child.stdout?.closed !== false && child.stderr?.closed !== false) resolve();
    child.once("close", () => resolve());
  });
  await exited;
  let timer: NodeJS.Timeout | undefined;
  const drained = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), drainMs)));
  const result = await Promise.race([closed.then(() => "closed" as const), drained]);
  clearTimeout(timer);
  if (result === "late") {
    child.stdout?.destroy();
    child.stderr?.destroy();
    return true;
  }
  return false;
}
