/**
 * write_file: create or overwrite a file atomically (temp file + rename),
 * creating parent directories.
 */
import type { ArgsOf, ToolDefinition } from "../../agent/types.js";
import type { ApprovalPolicy } from "../approval/policy.js";
import { defineTool } from "../common/define-tool.js";
import { writeFileAtomic } from "./atomic-write.js";
import { aborted, describeFsError, fail, ok, resolveUserPath } from "./shared.js";
import { refusedWrite } from "./write-guard.js";

const PARAMETERS = {
  type: "object",
  properties: {
    path: { type: "string", minLength: 1, description: "Path of the file to write: absolute, ~/…, or relative to the working directory." },
    content: { type: "string", description: "The complete new content of the file." },
  },
  required: ["path", "content"],
} as const;

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

export function createWriteFileTool(options: WriteToolOptions): ToolDefinition<ArgsOf<typeof PARAMETERS>> {
  return defineTool({
    name: "write_file",
    toolset: "file",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: true,
    readOnly: false,
    maxResultChars: 2_000,
    paths: (args, ctx) => [resolveUserPath(args.path, ctx.cwd)],
    execute: async (args, ctx, signal) => {
      if (signal.aborted) return aborted();
      const path = resolveUserPath(args.path, ctx.cwd);
      const refused = await refusedWrite(options.policy, { tool: "write_file", path, after: args.content }, ctx, signal);
      if (refused) return refused;
      if (signal.aborted) return aborted();
      try {
        const r = await writeFileAtomic(path, args.content, signal);
        return ok({ path: r.path, created: r.created, bytes_written: r.bytes, lines_written: countLines(args.content) });
      } catch (err) {
        if (signal.aborted) return aborted();
        return fail(describeFsError(err, path));
      }
    },
  });
}
