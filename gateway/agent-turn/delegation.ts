/**
 * The SubagentRunner behind delegate_task: a child is one more run of the
 * same agent loop on the same (resilient) model stream as its parent, with
 * its own conversation, its tools cut to what the delegate tool allows, a
 * budget drawn from the parent's, and the parent's abort signal. Its
 * messages and usage are stored as they happen in a session of its own,
 * linked to the parent's session (source "subagent"); its tool calls appear
 * in the parent's progress stream.
 *
 * What a child shares with its parent: the working directory, the approval
 * channel (a dangerous command is put to the same person, under the same
 * /yolo and session approvals), background-process ownership and
 * notifications. What it does not: history, todo list and other tool state,
 * and the person's attention (clarify is never offered).
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { type AgentLoopResult, type LoopEvent, loopOptionsFromConfig, runAgentLoop, type ToolView } from "../../agent/index.js";
import type { Clarifier, Message, SessionToolState, StreamFn, SubagentRequest, SubagentResult, SubagentRunner, ToolContext, Usage } from "../../agent/types.js";
import type { Config } from "../../config/index.js";
import { APPROVAL_STATE_KEYS } from "../../tools/approval/index.js";
import type { Store } from "../store/index.js";
import { previewArgs } from "./runner.js";

export const SUBAGENT_SOURCE = "subagent";

/** Where children's conversations are stored. Each method may throw; the runner logs and carries on. */
export interface ChildSessionSink {
  /** Creates the child's session linked to `parentSessionId`; returns its id. */
  open(s: { readonly parentSessionId: string; readonly systemPrompt: string; readonly model: string; readonly userId: string | null }): string;
  append(sessionId: string, message: Message): void;
  addUsage(sessionId: string, usage: Usage): void;
  end(sessionId: string, reason: string): void;
}

export function childSessionsOver(store: Store): ChildSessionSink {
  return {
    open: (s) =>
      store.sessions.create({ source: SUBAGENT_SOURCE, userId: s.userId, model: s.model, systemPrompt: s.systemPrompt, parentSessionId: s.parentSessionId }),
    append: (id, message) => void store.messages.append(id, message),
    addUsage: (id, usage) => store.sessions.addUsage(id, { ...usage, api_calls: 1 }),
    end: (id, reason) => void store.sessions.end(id, reason),
  };
}

export interface SubagentRunnerDeps {
  readonly config: Config;
  /** The same stream the parent's turns use. */
  readonly stream: StreamFn;
  /** The tools for these toolsets, config exclusions applied. */
  view(toolsets: readonly string[]): Promise<ToolView>;
  readonly sessions?: ChildSessionSink | undefined;
  readonly logger?: Logger | undefined;
}

const NO_CLARIFIER: Clarifier = { ask: async () => ({ kind: "unavailable" }) };

export function createSubagentRunner(deps: SubagentRunnerDeps): SubagentRunner {
  return {
    async run(req, parent, signal) {
      const tools = await childTools(deps, req);
      const model = deps.config.delegation.model ?? parent.agent?.model ?? deps.config.model.model;
      const store = new ChildStore(deps.sessions, deps.logger);
      const sessionId = store.open({ parentSessionId: parent.sessionId, systemPrompt: req.system, model, userId: parent.userId });
      const ctx: ToolContext = {
        ...parent,
        taskId: randomUUID(),
        sessionId: sessionId ?? parent.sessionId,
        clarifier: NO_CLARIFIER,
        state: childState(parent.state),
        agent: {
          budget: req.budget,
          depth: req.depth,
          model,
          toolsets: req.toolsets,
          tools,
          progress: (p) => req.progress({ ...p, label: `${req.label}.${p.label}` }),
        },
      };
      let toolCalls = 0;
      const emit = (e: LoopEvent) => {
        if (e.type === "message") store.append(sessionId, e.message);
        else if (e.type === "usage") store.addUsage(sessionId, e.usage);
        else if (e.type === "tool_start") {
          toolCalls++;
          req.progress({ label: req.label, kind: "tool", toolName: e.name, preview: previewArgs(e.args) });
        } else if (e.type === "step_start" || e.type === "tool_end") req.progress({ label: req.label, kind: "activity" });
      };
      const options = loopOptionsFromConfig(deps.config, { model, budget: req.budget, ...(deps.logger ? { logger: deps.logger } : {}) });
      const result = await runAgentLoop({ system: req.system, history: [], userMessage: req.task, tools, context: ctx }, options, emit, signal, deps.stream);
      const outcome = { ...resultOf(result), sessionId, toolCalls };
      store.end(sessionId, outcome.status);
      return outcome;
    },
  };
}

/** The toolsets' tools, cut to those the delegate tool allows. */
async function childTools(deps: SubagentRunnerDeps, req: SubagentRequest): Promise<ToolView> {
  return (await deps.view(req.toolsets)).only(req.allowedTools);
}

/**
 * The child's own tool state, except the approval keys, which stay the
 * session's: /yolo and "approve for this session" cover the children of
 * that session, and a session approval given to a child holds for it.
 */
function childState(parent: SessionToolState): SessionToolState {
  const own = new Map<string, unknown>();
  const shared = new Set<string>(Object.values(APPROVAL_STATE_KEYS));
  return {
    get: <T>(key: string) => (shared.has(key) ? parent.get<T>(key) : (own.get(key) as T | undefined)),
    set: <T>(key: string, value: T) => (shared.has(key) ? parent.set(key, value) : void own.set(key, value)),
  };
}

function resultOf(r: AgentLoopResult): Omit<SubagentResult, "sessionId" | "toolCalls"> {
  const base = { summary: r.finalText, apiCalls: r.apiCalls };
  switch (r.stop.kind) {
    case "completed":
      return { ...base, status: "completed" };
    case "budget_exhausted":
      return { ...base, status: "budget_exhausted" };
    case "interrupted":
      return { ...base, status: "interrupted", error: "The parent's turn was interrupted." };
    case "guardrail":
      return { ...base, status: "failed", error: r.stop.decision.message };
    case "error":
      return { ...base, status: "failed", error: `${r.stop.error.reason}: ${r.stop.error.message}` };
  }
}

/** Store writes for one child; a failing write is logged and the child goes on (its work matters more than its record). */
class ChildStore {
  constructor(
    private readonly sink: ChildSessionSink | undefined,
    private readonly logger: Logger | undefined,
  ) {}

  open(s: Parameters<ChildSessionSink["open"]>[0]): string | null {
    return this.#try("open", () => this.sink?.open(s) ?? null) ?? null;
  }
  append(id: string | null, m: Message): void {
    if (id) this.#try("append", () => this.sink?.append(id, m));
  }
  addUsage(id: string | null, u: Usage): void {
    if (id) this.#try("usage", () => this.sink?.addUsage(id, u));
  }
  end(id: string | null, reason: string): void {
    if (id) this.#try("end", () => this.sink?.end(id, reason));
  }

  #try<T>(what: string, write: () => T): T | undefined {
    try {
      return write();
    } catch (err) {
      this.logger?.error({ err }, `could not store the subagent session (${what})`);
      return undefined;
    }
  }
}
