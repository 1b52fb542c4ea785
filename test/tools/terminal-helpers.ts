/**
 * Shared setup for the terminal tests: a temp directory, a registry, the
 * two tools behind a real approval policy, and process-liveness probes that
 * read the kernel's view (zombies count as gone).
 */

import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApprovalDecision, Clock } from "../../agent/types.js";
import { systemClock } from "../../config/timing/index.js";
import { createApprovalPolicy } from "../../tools/approval/policy.js";
import type { Redactor } from "../../tools/common/redact.js";
import { createProcessTool } from "../../tools/terminal/process-tool.js";
import { ProcessRegistry } from "../../tools/terminal/processes.js";
import { createTerminalTool } from "../../tools/terminal/terminal-tool.js";
import type { NotificationMode } from "../../tools/terminal/watch.js";
import { approvalsConfig, choose, makeContext, ScriptedApprover, until } from "./approval-helpers.js";
import { callTool } from "./call-tool.js";

export interface Rig {
  readonly dir: string;
  readonly registry: ProcessRegistry;
  readonly approver: ScriptedApprover;
  readonly notices: string[];
  run(args: Record<string, unknown>, signal?: AbortSignal, sessionKey?: string): Promise<Record<string, unknown>>;
  proc(args: Record<string, unknown>, signal?: AbortSignal, sessionKey?: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function makeRig(
  opts: { maxOutputChars?: number; redact?: Redactor; answer?: ApprovalDecision["choice"]; notifications?: NotificationMode; clock?: Clock } = {},
): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), "hgw-terminal-"));
  const registry = new ProcessRegistry({ killGraceMs: 500 });
  const approver = new ScriptedApprover(choose(opts.answer ?? "once"));
  const policy = createApprovalPolicy({ approvals: approvalsConfig() });
  const terminal = createTerminalTool({
    policy,
    registry,
    ...(opts.maxOutputChars ? { maxOutputChars: opts.maxOutputChars } : {}),
    ...(opts.redact ? { redact: opts.redact } : {}),
    ...(opts.notifications ? { notifications: opts.notifications } : {}),
    killGraceMs: 500,
  });
  const processTool = createProcessTool({ registry });
  const notices: string[] = [];
  const ctxFor = (sessionKey?: string) =>
    makeContext({ approver, clock: opts.clock ?? systemClock, cwd: dir, home: dir, notify: (t) => notices.push(t), ...(sessionKey ? { sessionKey } : {}) });
  const parse = (s: string) => JSON.parse(s) as Record<string, unknown>;
  return {
    dir,
    registry,
    approver,
    notices,
    run: async (args, signal = new AbortController().signal, sessionKey) => parse(await callTool(terminal, args, ctxFor(sessionKey), signal)),
    proc: async (args, signal = new AbortController().signal, sessionKey) => parse(await callTool(processTool, args, ctxFor(sessionKey), signal)),
    close: async () => {
      await registry.shutdown();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Whether `pid` is a live (non-zombie) process. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Process-group id of a live process, from /proc. */
export function pgidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[2]);
}

/** Every live process in process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number)) {
    try {
      if (pgidOf(entry) === pgid && alive(entry)) out.push(entry);
    } catch {
      // The process exited while we looked.
    }
  }
  return out;
}

/** Waits until `file` lists `count` pids (one per line) and returns them. */
export async function pidsFrom(file: string, count: number): Promise<number[]> {
  let pids: number[] = [];
  await until(() => {
    try {
      pids = readFileSync(file, "utf8").split(/\s+/).filter(Boolean).map(Number);
    } catch {
      pids = [];
    }
    return pids.length >= count;
  }, 10_000);
  return pids;
}
