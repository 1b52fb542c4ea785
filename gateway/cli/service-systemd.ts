/**
 * Talking to the service manager: systemctl, loginctl, journalctl (and
 * useradd for a system unit's account) as child processes, found on the
 * command's PATH. Nothing here decides what to do; service.ts does.
 */
import { spawn } from "node:child_process";

export type Env = Readonly<Record<string, string | undefined>>;

export interface ExecResult {
  /** The exit code; 127 when the program is not installed. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `argv` to completion with its output captured. */
export function exec(argv: readonly string[], env: Env): Promise<ExecResult> {
  return new Promise((resolve) => {
    const [cmd = "", ...args] = argv;
    const child = spawn(cmd, args, { env: definedOnly(env), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", (err: NodeJS.ErrnoException) => resolve({ code: err.code === "ENOENT" ? 127 : 1, stdout, stderr: `${cmd}: ${err.message}` }));
    child.on("close", (code, signal) => resolve({ code: code ?? 128, stdout, stderr: signal ? `${stderr}${cmd} killed by ${signal}` : stderr }));
  });
}

/** Runs `argv` with the terminal as its output (journalctl -f); resolves with its exit code. */
export function execAttached(argv: readonly string[], env: Env): Promise<number> {
  return new Promise((resolve) => {
    const [cmd = "", ...args] = argv;
    const child = spawn(cmd, args, { env: definedOnly(env), stdio: ["inherit", "inherit", "inherit"] });
    child.on("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ENOENT" ? 127 : 1));
    child.on("close", (code) => resolve(code ?? 128));
  });
}

/** `systemctl` for one scope. */
export function systemctl(scope: "user" | "system", ...args: string[]): string[] {
  return ["systemctl", ...(scope === "user" ? ["--user"] : []), ...args];
}

/** States `systemctl is-system-running` prints when a manager answers (degraded: it runs, some unit failed). */
const MANAGER_UP = new Set(["initializing", "starting", "running", "degraded", "maintenance", "stopping"]);

/** Null when the scope's service manager answers, else why not (in a sentence). */
export async function managerProblem(scope: "user" | "system", env: Env): Promise<string | null> {
  const r = await exec(systemctl(scope, "is-system-running"), env);
  if (r.code === 127) return "systemctl is not installed here";
  if (MANAGER_UP.has(r.stdout.trim())) return null;
  const said = (r.stderr.trim() || r.stdout.trim()).split("\n")[0];
  return scope === "user"
    ? `no systemd user manager answers for this account (systemctl --user: ${said}); log in as that user (not su), or install a system unit with --system`
    : `systemd is not running here (systemctl: ${said})`;
}

function definedOnly(env: Env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
