/**
 * The `process` tool: manages background commands started by `terminal`
 * (list, poll for new output, read the log, wait, kill). A session only
 * sees the processes it started.
 */
import type { ArgsOf, ToolContext, ToolDefinition } from "../../agent/types.js";
import { ERRORS } from "../../config/errors.js";
import { defineTool } from "../common/define-tool.js";
import { type ProcessInfo, type ProcessRegistry, ProcessRegistryError } from "./processes.js";

export interface ProcessToolOptions {
  readonly registry: ProcessRegistry;
}

const POLL_LIMIT = 20_000;
const LOG_LIMIT_DEFAULT = 10_000;
const LOG_LIMIT_MAX = 50_000;
const WAIT_DEFAULT_S = 60;
const WAIT_MAX_S = 600;
const WAIT_TAIL = 2_000;

const PARAMETERS = {
  type: "object",
  properties: {
    action: {
      type: "string",
      enum: ["list", "poll", "log", "wait", "kill"],
      description:
        "list: this session's processes; poll: status and output since the last poll; log: output from an offset; wait: block until it finishes; kill: stop it and its children.",
    },
    id: { type: "string", description: "Process id from terminal(background=true). Required except for list." },
    offset: { type: "integer", minimum: 0, description: "log: character offset to read from (default: the oldest output still kept)." },
    limit: { type: "integer", minimum: 1, maximum: LOG_LIMIT_MAX, description: `log: characters to return (default ${LOG_LIMIT_DEFAULT}).` },
    timeout: { type: "integer", minimum: 1, maximum: WAIT_MAX_S, description: `wait: seconds to wait (default ${WAIT_DEFAULT_S}).` },
  },
  required: ["action"],
  additionalProperties: false,
} as const;
export type ProcessArgs = ArgsOf<typeof PARAMETERS>;

export function createProcessTool(opts: ProcessToolOptions): ToolDefinition<ProcessArgs> {
  return defineTool({
    name: "process",
    toolset: "terminal",
    description: "Manage background processes started with terminal(background=true).",
    parameters: PARAMETERS,
    parallelSafe: true,
    maxResultChars: LOG_LIMIT_MAX + 2_000,
    async execute(args, ctx, signal) {
      try {
        return JSON.stringify(await act(opts.registry, args, ctx, signal));
      } catch (err) {
        if (err instanceof ProcessRegistryError && err.reason === "not_found")
          return JSON.stringify({ error: `${ERRORS.HGW_ERR_PROCESS_NOT_FOUND} (${args.id ?? ""})` });
        return JSON.stringify({ error: err instanceof Error ? err.message : String(err) });
      }
    },
  });
}

function describe(info: ProcessInfo, now: number): Record<string, unknown> {
  return {
    id: info.id,
    pid: info.pid,
    command: info.command.length > 200 ? `${info.command.slice(0, 197)}...` : info.command,
    status: info.status,
    exit_code: info.exitCode,
    ...(info.signal ? { signal: info.signal } : {}),
    runtime_s: Math.round(((info.endedAt ?? now) - info.startedAt) / 100) / 10,
    output_chars: info.outputChars,
    ...(info.error ? { error: info.error } : {}),
  };
}

async function act(registry: ProcessRegistry, args: ProcessArgs, ctx: ToolContext, signal: AbortSignal): Promise<Record<string, unknown>> {
  const now = Date.now();
  const key = ctx.sessionKey;
  if (args.action === "list") return { processes: registry.list(key).map((p) => describe(p, now)) };
  if (!args.id) return { error: `action ${args.action} needs an id` };
  switch (args.action) {
    case "poll": {
      const r = registry.poll(args.id, key, POLL_LIMIT);
      return { ...describe(r.info, now), new_output: r.output, ...(r.dropped > 0 ? { dropped_chars: r.dropped } : {}) };
    }
    case "log": {
      const r = registry.log(args.id, key, args.offset, args.limit ?? LOG_LIMIT_DEFAULT);
      return { ...describe(r.info, now), text: r.text, offset: r.from, next_offset: r.to, total_chars: r.total, oldest_offset: r.first };
    }
    case "wait": {
      const seconds = args.timeout ?? WAIT_DEFAULT_S;
      const timerCtl = new AbortController();
      try {
        const r = await registry.wait(args.id, key, ctx.clock.sleep(seconds * 1000, timerCtl.signal), signal);
        const tail = registry.tail(args.id, key, WAIT_TAIL);
        return {
          ...describe(r.info, Date.now()),
          finished: r.finished,
          ...(r.finished ? {} : { note: signal.aborted ? "interrupted while waiting" : `still running after ${seconds} s` }),
          output_tail: tail.text,
        };
      } finally {
        timerCtl.abort();
      }
    }
    case "kill":
      return describe(await registry.kill(args.id, key), Date.now());
  }
}
