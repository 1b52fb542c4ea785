/**
 * The production TurnRunner: one run of the agent loop with the session's
 * frozen prompt, its history, the platform's toolsets and the runtime's
 * ToolContext. Loop events become runtime TurnEvents; steering is pulled from
 * the session mailbox at each tool boundary.
 */
import type { Logger } from "pino";
import { loopOptionsFromConfig, runAgentLoop, SteerQueue, type AgentLoopResult, type LoopEvent, type ToolView } from "../../agent/index.js";
import type { StreamFn } from "../../agent/types.js";
import type { Config } from "../../config/index.js";
import type { TurnEvent, TurnRequest, TurnResult, TurnRunner } from "./ports.js";

export interface AgentRunnerDeps {
  readonly config: Config;
  /** The resilient provider stream (agent/providers createStreamFn().stream). */
  readonly stream: StreamFn;
  /** The tools the turn may use, for the platform's toolsets. */
  tools(toolsets: readonly string[]): Promise<ToolView>;
  readonly logger?: Logger;
}

/** The loop drains its SteerQueue at tool boundaries; this one pulls from the session's mailbox instead. */
class MailboxSteer extends SteerQueue {
  constructor(private readonly take: () => string | null) {
    super();
  }
  override get size(): number {
    return 0;
  }
  override drain(): readonly string[] {
    const out: string[] = [];
    for (let t = this.take(); t !== null; t = this.take()) if (t.trim()) out.push(t.trim());
    return out;
  }
}

const PREVIEW_KEYS = ["command", "path", "query", "url", "pattern", "name", "action"];

/** A short human preview of a tool call's arguments for progress lines. */
export function previewArgs(args: Readonly<Record<string, unknown>>): string {
  for (const k of PREVIEW_KEYS) if (typeof args[k] === "string") return args[k];
  const first = Object.values(args).find((v) => typeof v === "string");
  return typeof first === "string" ? first : "";
}

function toTurnEvent(e: LoopEvent): TurnEvent {
  if (e.type === "tool_start") return { type: "tool_start", toolName: e.name, preview: previewArgs(e.args) };
  if (e.type === "tool_end") return { type: "tool_end", toolName: e.name, isError: !e.ok };
  if (e.type === "text_delta") return { type: "text_delta", delta: e.delta };
  return { type: "activity" };
}

export function toTurnResult(r: AgentLoopResult): TurnResult {
  const base = { messages: r.messages, usage: r.usage, unusedSteer: r.pendingSteer.length };
  switch (r.stop.kind) {
    case "interrupted":
      return { ...base, status: "aborted", finalText: null };
    case "error":
      return { ...base, status: "failed", finalText: r.finalText || null, error: r.stop.error.message };
    default:
      // completed, budget exhausted (the loop wrote a summary) and guardrail stops all end with an answer.
      return { ...base, status: "completed", finalText: r.finalText };
  }
}

export function createAgentRunner(deps: AgentRunnerDeps): TurnRunner {
  return {
    async run(req: TurnRequest, signal: AbortSignal): Promise<TurnResult> {
      const tools = await deps.tools(req.toolsets);
      const options = loopOptionsFromConfig(deps.config, { model: req.model, steer: new MailboxSteer(req.takeSteer), logger: deps.logger });
      const result = await runAgentLoop(
        { system: req.systemPrompt, ephemeralPrompt: deps.config.agent.ephemeral_prompt, history: req.history, userMessage: req.input, tools, context: req.tools },
        options,
        (e) => req.emit(toTurnEvent(e)),
        signal,
        deps.stream,
      );
      return toTurnResult(result);
    },
  };
}
