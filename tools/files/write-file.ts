/**
 * write_file: create or overwrite a file atomically (temp file + rename),
 * creating parent directories.
 */
import { z } from "zod";
import type { ToolDefinition } from "../../agent/types.js";
import type { ApprovalPolicy } from "../approval/policy.js";
import { writeFileAtomic } from "./atomic-write.js";
import { aborted, describeFsError, fail, ok, parseArgs, resolveUserPath, toolSchema } from "./shared.js";
import { refusedWrite } from "./write-guard.js";

const Args = z.object({
  path: z.string().min(1).describe("Path of the file to write: absolute, ~/…, or relative to the working directory."),
  content: z.string().describe("The complete new content of the file."),
});

const DESCRIPTION =
  "Write a file, replacing it entirely if it exists. Parent directories are created. " +
  "The write is atomic: readers see the old file or the new one, never half of it. " +
  "To change part of an existing file, use `patch` instead — it is safer and shows a diff. " +
  "Writes to shell start-up files, ~/.ssh, credentials, scheduled jobs, VCS hooks, system paths and the gateway's own files need the user's approval; " +
  "if a result says BLOCKED, do not retry or work around it.";

/** Number of lines as an editor counts them (a trailing newline does not start a new line). */
export function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

export interface WriteToolOptions {
  /** The approval policy the terminal uses; every write is checked against it first. */
  readonly policy: ApprovalPolicy;
}

export function createWriteFileTool(options: WriteToolOptions): ToolDefinition {
  return {
    name: "write_file",
    toolset: "file",
    schema: toolSchema("write_file", DESCRIPTION, Args),
    parallelSafe: true,
    readOnly: false,
    maxResultChars: 2_000,
    paths: (args, ctx) => (typeof args["path"] === "string" ? [resolveUserPath(args["path"], ctx.cwd)] : []),
    execute: async (raw, ctx, signal) => {
      const parsed = parseArgs(Args, raw);
      if (!parsed.ok) return fail(parsed.error);
      if (signal.aborted) return aborted();
      const path = resolveUserPath(parsed.value.path, ctx.cwd);
      const refused = await refusedWrite(options.policy, { tool: "write_file", path, after: parsed.value.content }, ctx, signal);
      if (refused) return refused;
      if (signal.aborted) return aborted();
      try {
        const r = await writeFileAtomic(path, parsed.value.content, signal);
        return ok({ path: r.path, created: r.created, bytes_written: r.bytes, lines_written: countLines(parsed.value.content) });
      } catch (err) {
        if (signal.aborted) return aborted();
        return fail(describeFsError(err, path));
      }
    },
  };
}
