/**
 * Reading `HERMES_HOME/gateway.pid`, the file the running daemon writes when
 * it takes its instance lock and removes when it stops: who holds the home.
 *
 * A pid file can outlive its daemon (SIGKILL, a crash, a reboot), and its pid
 * can by then belong to another program. So a pid counts as the holder only
 * when that process is alive and was already running when the file was
 * written: a process that started after the file's `start_time` cannot have
 * written it (pid reuse, or a file from before a reboot). Where /proc does not
 * say when a process started, being alive is all that is checked.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { processAlive } from "../tools/common/process-alive.js";

export type PidFile =
  | { readonly kind: "absent"; readonly path: string }
  | { readonly kind: "unreadable"; readonly path: string; readonly why: string }
  /** `alive`: the process that wrote the file still runs (see above). */
  | { readonly kind: "pid"; readonly path: string; readonly pid: number; readonly alive: boolean };

export function pidFilePath(home: string): string {
  return join(home, "gateway.pid");
}

export async function readPidFile(home: string): Promise<PidFile> {
  const path = pidFilePath(home);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT"
      ? { kind: "absent", path }
      : { kind: "unreadable", path, why: `cannot read ${path} (${code ?? (err as Error).message}): run this as the service's user` };
  }
  try {
    const data = JSON.parse(text) as { pid?: unknown; start_time?: unknown };
    const pid = data.pid;
    if (typeof pid === "number" && Number.isInteger(pid) && pid > 0) {
      const writtenAt = typeof data.start_time === "number" ? data.start_time : null;
      return { kind: "pid", path, pid, alive: processAlive(pid) && !startedAfter(pid, writtenAt) };
    }
  } catch {
    // half-written or foreign: it names nobody
  }
  return { kind: "absent", path };
}

/** Seconds of slack for clock granularity between the kernel's start time and the file's. */
const SLACK_S = 2;
/** Clock ticks per second in /proc/<pid>/stat (USER_HZ: 100 on every Linux architecture Node runs on). */
const USER_HZ = 100;

/** True when /proc says `pid` started after `epochS` (so it did not write a file stamped then). */
function startedAfter(pid: number, epochS: number | null): boolean {
  if (epochS === null) return false;
  const started = processStartEpochS(pid);
  return started !== null && started > epochS + SLACK_S;
}

function processStartEpochS(pid: number): number | null {
  try {
    // Synchronous on purpose: /proc reads do no disk I/O, and this runs at start-up and in CLI commands only.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its closing one.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    const btime = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1];
    return Number.isFinite(ticks) && btime ? Number(btime) + ticks / USER_HZ : null;
  } catch {
    return null;
  }
}
