/**
 * The `terminal` tool: runs a shell command on the host after the approval
 * policy allows it, in the foreground (output, exit code, duration) or in
 * the background (an id for the `process` tool). Results are JSON strings
 * the model can act on — refusals and failures included.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { Logger } from "pino";
import type { ArgsOf, ToolContext, ToolDefinition } from "../../agent/types.js";
import { ERRORS } from "../../config/errors.js";
import type { ApprovalPolicy } from "../approval/policy.js";
import { defineTool } from "../common/define-tool.js";
import type { Redactor } from "../common/redact.js";
import { type ProcessRegistry, ProcessRegistryError } from "./processes.js";
import { runForeground } from "./run-foreground.js";
import { findShell, type Shell } from "./spawn-shell.js";
import { MIN_CHECK_INTERVAL_S, type NotificationMode, watchProcess } from "./watch.js";

export interface TerminalToolOptions {
  readonly policy: ApprovalPolicy;
  readonly registry: ProcessRegistry;
  /** Environment for commands (the gateway passes one without its own secrets); inherited when absent. */
  readonly env?: NodeJS.ProcessEnv;
  /** Preferred shell (absolute path); default bash, else /bin/sh. */
  readonly shell?: string;
  /** Extra redaction (exact configured secrets), applied after the built-in token patterns. */
  readonly redact?: Redactor;
  /** Output kept for the model; the first third and the last two thirds survive. Default 30 000. */
  readonly maxOutputChars?: number;
  readonly killGraceMs?: number;
  /** Which background-process notices reach the conversation (gateway.background_notifications). Default "all". */
  readonly notifications?: NotificationMode;
  readonly logger?: Logger;
}

export const DEFAULT_TIMEOUT_S = 180;
export const MAX_TIMEOUT_S = 600;

const DESCRIPTION =
  "Run a shell command (bash) on the host and get its output and exit code. Dangerous commands wait for the user's approval and some are never allowed; " +
  "if a result says BLOCKED, do not retry or work around it. stdin is closed, so interactive programs will not work. Output has ANSI codes removed, " +
  "secrets masked, and very long output cut in the middle. For servers or jobs longer than a few minutes use background=true and the process tool.";

const PARAMETERS = {
  type: "object",
  properties: {
    command: { type: "string", description: "The command line to run." },
    timeout: {
      type: "integer",
      minimum: 1,
      maximum: MAX_TIMEOUT_S,
      description: `Seconds before a foreground command is killed (default ${DEFAULT_TIMEOUT_S}, max ${MAX_TIMEOUT_S}).`,
    },
    workdir: { type: "string", description: "Working directory: absolute, ~/…, or relative to the session's working directory." },
    background: { type: "boolean", description: "Start in the background and return an id immediately (manage it with the process tool)." },
    notify_on_complete: { type: "boolean", description: "With background=true: post the final output to the conversation when the process finishes." },
    check_interval: {
      type: "integer",
      minimum: MIN_CHECK_INTERVAL_S,
      description: `With background=true: also post the new output every this many seconds while it runs (at least ${MIN_CHECK_INTERVAL_S}).`,
    },
  },
  required: ["command"],
  additionalProperties: false,
} as const;
export type TerminalArgs = ArgsOf<typeof PARAMETERS>;

export function createTerminalTool(opts: TerminalToolOptions): ToolDefinition<TerminalArgs> {
  let shell: Promise<Shell> | undefined;
  const maxChars = opts.maxOutputChars ?? 30_000;
  return defineTool({
    name: "terminal",
    toolset: "terminal",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: false,
    maxResultChars: maxChars + 2_000,
    async execute(args, ctx, signal) {
      // The schema cannot say "not blank"; a blank command would start an idle shell.
      if (args.command.trim() === "") return json({ output: "", exit_code: -1, status: "error", error: "command must be a non-empty string" });
      const cwd = await resolveWorkdir(args.workdir, ctx);
      if ("error" in cwd) return json({ output: "", exit_code: -1, status: "error", error: cwd.error });
      const decision = await opts.policy.check(args.command, ctx, signal);
      if (!decision.allowed) return json({ output: "", exit_code: -1, status: "blocked", error: decision.message, code: decision.code });
      shell ??= findShell(opts.shell);
      if (args.background) return startBackground(args, cwd.dir, await shell, ctx, opts);
      return runInForeground(args, cwd.dir, await shell, ctx, signal, opts, maxChars);
    },
  });
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

async function resolveWorkdir(workdir: string | undefined, ctx: ToolContext): Promise<{ dir: string } | { error: string }> {
  const raw = workdir?.trim() || ".";
  const expanded = raw === "~" ? ctx.home : raw.startsWith("~/") ? resolve(ctx.home, raw.slice(2)) : raw;
  const dir = isAbsolute(expanded) ? resolve(expanded) : resolve(ctx.cwd, expanded);
  try {
    if ((await stat(dir)).isDirectory()) return { dir };
    return { error: `workdir is not a directory: ${dir}` };
  } catch {
    return { error: `workdir does not exist: ${dir}` };
  }
}

async function runInForeground(
  args: TerminalArgs,
  cwd: string,
  shell: Shell,
  ctx: ToolContext,
  signal: AbortSignal,
  opts: TerminalToolOptions,
  maxChars: number,
): Promise<string> {
  const timeoutS = Math.min(args.timeout ?? DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S);
  const head = Math.floor(maxChars / 3);
  const r = await runForeground(
    {
      command: args.command,
      cwd,
      shell,
      timeoutMs: timeoutS * 1000,
      clock: ctx.clock,
      headChars: head,
      tailChars: maxChars - head,
      killGraceMs: opts.killGraceMs ?? 1000,
      drainMs: 1000,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.redact ? { redact: opts.redact } : {}),
    },
    signal,
  );
  const status = r.spawnError ? "error" : r.interrupted ? "interrupted" : r.timedOut ? "timeout" : r.exitCode === 0 ? "ok" : "error";
  const error = r.spawnError
    ? `${ERRORS.HGW_ERR_COMMAND_SPAWN} ${r.spawnError}`
    : r.timedOut
      ? `${ERRORS.HGW_ERR_COMMAND_TIMEOUT} (after ${timeoutS} s). For long jobs use background=true.`
      : r.interrupted
        ? "The command was interrupted by the user; its whole process group was killed."
        : null;
  return json({
    output: r.output,
    exit_code: r.exitCode,
    ...(r.signal ? { signal: r.signal } : {}),
    status,
    duration_s: Math.round(r.durationMs / 100) / 10,
    cwd,
    ...(r.truncated ? { truncated: true, total_chars: r.totalChars } : {}),
    ...(r.lingering ? { note: "The command left a process running that kept its output open; use background=true for long-running processes." } : {}),
    error,
  });
}

function startBackground(args: TerminalArgs, cwd: string, shell: Shell, ctx: ToolContext, opts: TerminalToolOptions): string {
  try {
    let id = "";
    const watched = args.notify_on_complete || args.check_interval !== undefined;
    const watch = watched ? watchProcess(opts.registry, () => id, ctx, opts.notifications ?? "all", args.check_interval) : null;
    const info = opts.registry.start({
      command: args.command,
      cwd,
      shell,
      sessionKey: ctx.sessionKey,
      ...(opts.env ? { env: opts.env } : {}),
      onComplete: (done, log) => {
        try {
          watch?.ended(done, log);
        } catch (err) {
          // Notifications are best effort; the process tool still shows the result.
          opts.logger?.warn({ err, id: done.id }, "background completion notification failed");
        }
      },
    });
    id = info.id;
    return json({
      status: "started",
      id: info.id,
      pid: info.pid,
      cwd,
      notify_on_complete: Boolean(args.notify_on_complete),
      message: `Started in the background. Use the process tool with id ${info.id} to poll, read the log, wait or kill.`,
    });
  } catch (err) {
    if (err instanceof ProcessRegistryError) return json({ output: "", exit_code: -1, status: "error", error: err.message });
    return json({ output: "", exit_code: -1, status: "error", error: `${ERRORS.HGW_ERR_COMMAND_SPAWN} ${err instanceof Error ? err.message : String(err)}` });
  }
}
