/**
 * Reading `HERMES_HOME/gateway.pid`, the file the running daemon writes when
 * it takes its instance lock and removes when it stops: who holds the home.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { processAlive } from "../../tools/shared/process-alive.js";

export type PidFile =
  | { readonly kind: "absent"; readonly path: string }
  | { readonly kind: "unreadable"; readonly path: string; readonly why: string }
  | { readonly kind: "pid"; readonly path: string; readonly pid: number; readonly alive: boolean };

export async function readPidFile(home: string): Promise<PidFile> {
  const path = join(home, "gateway.pid");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? { kind: "absent", path } : { kind: "unreadable", path, why: `cannot read ${path} (${code ?? (err as Error).message}): run this as the service's user` };
  }
  try {
    const pid = (JSON.parse(text) as { pid?: unknown }).pid;
    if (typeof pid === "number" && Number.isInteger(pid) && pid > 0) return { kind: "pid", path, pid, alive: processAlive(pid) };
  } catch {
    // half-written or foreign: it names nobody
  }
  return { kind: "absent", path };
}
