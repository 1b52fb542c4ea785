/**
 * The production TurnRunner: one run of the agent loop with the session's
 * frozen prompt, its history, the platform's toolsets and the runtime's
 * ToolContext. Loop events become runtime TurnEvents; steering is pulled from
 * the session mailbox at each tool boundary. With `compression`, a history
 * past gateway_threshold is compressed before the turn, the loop compresses
 * preflight and after a context overflow, and the result says where the
 * conversation continues (turn-finish moves it to a child session). A turn
 * cut off by a crash resumes from its journaled messages (TurnRequest.resume).
 */
import type { Logger } from "pino";
import {
  type AgentLoopResult,
  IterationBudget,
  type LoopEvent,
  loopOptionsFromConfig,
  repairHistory,
  runAgentLoop,
  SteerQueue,
  type ToolView,
} from "../../agent/index.js";
import type { Message, StreamFn } from "../../agent/types.js";
import type { Config } from "../../config/index.js";
import type { TurnEvent, TurnRequest, TurnResult, TurnRunner } from "../runtime/ports.js";
import { scrubReply } from "../tools-session.js";
import { subagentTurnEvent, topLevelRun } from "./agent-run.js";
import { type Compression, fallbackWarning, type TurnCompression } from "./compression.js";

export interface AgentRunnerDeps {
  readonly config: Config;
  /** The resilient provider stream (agent/providers createStreamFn().stream). */
  readonly stream: StreamFn;
  /** The tools the turn may use, for the platform's toolsets. */
  tools(toolsets: readonly string[]): Promise<ToolView>;
  /** Context compression (gateway/agent-turn/compression.ts); absent → a context overflow ends the turn. */
  readonly compression?: Compression | undefined;
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

/** The loop's events as the runtime sees them; a compression's note (a failed summary) also arrives as a notice. */
function toTurnEvents(e: LoopEvent): readonly TurnEvent[] {
  switch (e.type) {
    case "tool_start":
      return [{ type: "tool_start", toolName: e.name, preview: previewArgs(e.args) }];
    case "tool_end":
      return [{ type: "tool_end", toolName: e.name, isError: !e.ok, durationMs: e.durationMs, preview: e.preview }];
    case "text_delta":
      return [{ type: "text_delta", delta: e.delta }];
    case "message":
      return [{ type: "message", message: e.message }];
    case "status":
      if (e.status === "thinking") return [{ type: "model_request" }];
      return [e.status === "compressing" ? { type: "progress", progress: { kind: "compressing" } } : { type: "activity" }];
    case "reasoning_delta":
    case "tool_call_generated":
      return [{ type: "model_output" }];
    case "compression": {
      const done: TurnEvent = { type: "progress", progress: { kind: "compressed", tokensBefore: e.tokensBefore, tokensAfter: e.tokensAfter } };
      return e.note ? [done, { type: "notice", text: e.note }] : [done];
    }
    case "budget_warning":
      return [{ type: "progress", progress: { kind: "budget", tier: e.tier, used: e.used, max: e.max } }];
    case "guardrail":
      return [{ type: "progress", progress: { kind: "guardrail", message: e.decision.message } }];
    default:
      return [{ type: "activity" }];
  }
}

/**
 * The loop's result as the runtime's. `finalText` is what the chat is shown: without the `<memory-context>`
 * blocks the model echoed (the history keeps its message as written). Every final reply — a turn's, sent whole
 * or streamed, a background task's, a scheduled job's — takes its text from here; a stream's previews are
 * scrubbed as they arrive (stream-reply.ts).
 */
export function toTurnResult(r: AgentLoopResult): TurnResult {
  const base = { messages: r.messages, usage: r.usage, apiCalls: r.apiCalls, unusedSteer: r.pendingSteer.length };
  const finalText = scrubReply(r.finalText);
  switch (r.stop.kind) {
    case "interrupted":
      return { ...base, status: "aborted", finalText: null };
    case "error":
      return { ...base, status: "failed", finalText: finalText || null, error: `the model call failed (${r.stop.error.reason}): ${r.stop.error.message}` };
    default:
      // completed, budget exhausted (the loop wrote a summary) and guardrail stops all end with an answer.
      return { ...base, status: "completed", finalText };
  }
}

export function createAgentRunner(deps: AgentRunnerDeps): TurnRunner {
  return {
    async run(req: TurnRequest, signal: AbortSignal): Promise<TurnResult> {
      const tools = await deps.tools(req.toolsets);
      const ephemeralPrompt = deps.config.agent.ephemeral_prompt;
      const cc = deps.compression?.enabled
        ? deps.compression.forTurn(req.tools.state, { system: req.systemPrompt, ephemeralPrompt, tools: tools.schemas, model: req.model })
        : null;
      const history = cc ? await compressBeforeTurn(cc, req, signal, deps.logger) : req.history;
      const resumed = resumedMessages(req.input, req.resume);
      // The turn's messages so far count as the turn's for a compression during the rest of it.
      for (const message of resumed) cc?.observe({ type: "message", message });
      const budget = new IterationBudget(deps.config.agent.max_turns);
      const options = loopOptionsFromConfig(deps.config, {
        model: req.model,
        budget,
        steer: new MailboxSteer(req.takeSteer),
        logger: deps.logger,
        ...(cc ? { compress: cc.compress, contextLength: cc.contextLength } : {}),
      });
      const result = await runAgentLoop(
        {
          system: req.systemPrompt,
          ephemeralPrompt,
          history: [...history, ...resumed],
          userMessage: resumed.length > 0 ? null : req.input,
          tools,
          // delegate_task and execute_code reach the turn's budget, tools and progress stream through this.
          context: {
            ...req.tools,
            agent: topLevelRun({ budget, model: req.model, toolsets: req.toolsets, tools, progress: (p) => req.emit(subagentTurnEvent(p)) }),
          },
        },
        options,
        (e) => {
          cc?.observe(e);
          for (const t of toTurnEvents(e)) req.emit(t);
        },
        signal,
        deps.stream,
      );
      const split = cc?.split;
      const turn = toTurnResult(result);
      return { ...turn, messages: [...resumed, ...turn.messages], ...(split ? { compaction: { history: split.history, splitAt: split.splitAt } } : {}) };
    },
  };
}

/** What a tool call cut off by a restart returns: the model must not take the call as done, nor repeat it blindly. */
export const RESTARTED_RESULT_CONTENT = JSON.stringify({
  error: "The gateway restarted while this tool call was running, so its result was lost. It may or may not have taken effect: check before running it again.",
});

/**
 * A resumed turn's messages so far: its user message, then its journaled tool calls and results, each call
 * that never got a result closed with RESTARTED_RESULT_CONTENT. Empty for a fresh turn.
 */
function resumedMessages(input: Message, resume: readonly Message[] | undefined): readonly Message[] {
  return resume?.length ? repairHistory([input, ...resume], RESTARTED_RESULT_CONTENT).history : [];
}

/** The gateway's between-turns compression; a failure here must not cost the turn, which then runs on the full history. */
async function compressBeforeTurn(cc: TurnCompression, req: TurnRequest, signal: AbortSignal, logger: Logger | undefined): Promise<readonly Message[]> {
  try {
    const history = await cc.beforeTurn(req.history, signal);
    if (cc.split?.last.fallbackUsed) req.emit({ type: "notice", text: fallbackWarning(cc.split.last) });
    return history;
  } catch (err) {
    logger?.error({ err, sessionId: req.sessionId }, "compression before the turn failed; running on the full history");
    return req.history;
  }
}
