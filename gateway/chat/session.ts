/**
 * A chat session on the `cli` platform: created with its system prompt built
 * once and frozen in the store, or resumed with that stored prompt read back
 * (never rebuilt). Each turn runs the agent loop; every message the loop
 * emits is appended to the store as it happens and every model call's usage
 * is added to the session's counters, so an interrupted turn keeps what it did.
 * When the loop compresses the history the conversation moves, mid-turn, to a
 * child session (gateway/compression.ts) and everything after is stored there.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { blockedFileNotice, buildSystemPrompt, IterationBudget, localEnvironment, loopOptionsFromConfig, runAgentLoop, type AgentLoopResult, type LoopEvent, type ToolView } from "../../agent/index.js";
import type { ProviderRuntime } from "../../agent/providers/index.js";
import type { AgentRun, Approver, Clarifier, Clock, Message, SessionToolState, ToolContext } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import type { Config } from "../../config/index.js";
import { subagentLoopEvent, topLevelRun } from "../agent-run.js";
import { childSystemPrompt, compactionLine, writeCompaction, type Compacted, type Compression } from "../compression.js";
import type { Store } from "../store/index.js";
import type { ToolSystem } from "../tools.js";
import { createToolState, restoreToolState, sessionPromptExtras } from "../tools-session.js";

export const CLI_PLATFORM = "cli";

export interface ChatDeps {
  readonly config: Config;
  readonly store: Store;
  readonly provider: ProviderRuntime;
  readonly tools: ToolSystem;
  /** Context compression (summaries through the auxiliary client's "compression" task). */
  readonly compression: Compression;
  /** Where relative paths resolve and context files are found. */
  readonly cwd: string;
  readonly clock: Clock;
  readonly logger?: Logger | undefined;
}

export interface ChatSession {
  /** Changes when a compression moves the conversation to a child session. */
  id: string;
  systemPrompt: string;
  /** The conversation so far, without the system message. */
  history: readonly Message[];
  readonly state: SessionToolState;
  /** What the person should be told about a new session's prompt (a context file left out). */
  readonly notices?: readonly string[];
}

/** How a turn reaches the person at the terminal. */
export interface TurnIo {
  readonly approver: Approver;
  readonly clarifier: Clarifier;
  /** Loop events, for display. Must not throw. */
  emit(event: LoopEvent): void;
  /** Background notifications (a process finished). */
  notify(text: string): void;
}

export interface TurnOutcome {
  readonly result: AgentLoopResult;
  /** Store writes that failed during the turn (the turn itself went on). */
  readonly persistErrors: number;
}

/** Builds the session's system prompt (prompt layers 1–9) and records the session. */
export async function startSession(deps: ChatDeps, signal?: AbortSignal): Promise<ChatSession> {
  const { system, notices } = await buildCliPrompt(deps, signal);
  const id = deps.store.sessions.create({ source: CLI_PLATFORM, model: deps.config.model.model, systemPrompt: system });
  return { id, systemPrompt: system, history: [], state: createToolState(), notices };
}

/**
 * Reopens a stored session by id or exact title, with its frozen prompt and
 * history. Throws HGW_ERR_SESSION_NOT_FOUND.
 */
export async function resumeSession(deps: ChatDeps, ref: string, signal?: AbortSignal): Promise<ChatSession> {
  const { store } = deps;
  const record = store.sessions.get(ref) ?? store.sessions.getByTitle(ref);
  if (!record) throw new HermesError("HGW_ERR_SESSION_NOT_FOUND", `Nothing matches "${ref}" as a session id or title; see \`hermes-gateway sessions list\`.`);
  let systemPrompt = record.systemPrompt;
  if (systemPrompt === null) {
    // A session recorded without a prompt (an old or foreign store): build one for this run only.
    deps.logger?.warn({ sessionId: record.id }, "the session has no stored system prompt; building one for this run");
    systemPrompt = (await buildCliPrompt(deps, signal)).system;
  }
  if (record.endedAt !== null) store.sessions.reopen(record.id);
  const history = store.messages.loadConversation(record.id);
  const state = createToolState();
  restoreToolState(state, history);
  return { id: record.id, systemPrompt, history, state };
}

async function buildCliPrompt(deps: ChatDeps, signal?: AbortSignal): Promise<{ system: string; notices: string[] }> {
  const { config } = deps;
  const [view, extras] = await Promise.all([deps.tools.toolViewFor(CLI_PLATFORM), sessionPromptExtras(config, signal)]);
  const built = await buildSystemPrompt({
    home: config.home,
    identity: config.agent.identity,
    platform: CLI_PLATFORM,
    environment: localEnvironment(deps.cwd),
    model: config.model.model,
    toolNames: view.schemas.map((s) => s.name),
    skillsIndex: extras.skillsIndex,
    memoryBlock: extras.memoryBlock,
    contextDir: deps.cwd,
    signal,
  });
  for (const warning of built.warnings) deps.logger?.warn({ warning }, "system prompt");
  return { system: built.system, notices: built.blocked.map(blockedFileNotice) };
}

export function endSession(deps: Pick<ChatDeps, "store" | "logger">, session: ChatSession, reason: string): void {
  try {
    deps.store.sessions.end(session.id, reason);
  } catch (err) {
    deps.logger?.error({ err, sessionId: session.id }, "could not mark the session ended");
  }
}

/** The ToolContext of one CLI turn: the terminal's approver and clarifier, store search, the session's state. */
export function cliToolContext(deps: ChatDeps, session: ChatSession, io: TurnIo): ToolContext {
  return {
    taskId: randomUUID(),
    sessionId: session.id,
    sessionKey: `${CLI_PLATFORM}:${session.id}`,
    platform: CLI_PLATFORM,
    userId: null,
    cwd: deps.cwd,
    home: deps.config.home,
    approver: io.approver,
    clarifier: io.clarifier,
    sessions: deps.store.search.searcher,
    clock: deps.clock,
    state: session.state,
    notify: (text) => io.notify(text),
  };
}

/** One turn: runs the loop with persistence on every message and usage event; never throws for model or tool failures. */
export async function runTurn(deps: ChatDeps, session: ChatSession, input: string, io: TurnIo, signal: AbortSignal): Promise<TurnOutcome> {
  const { config, store } = deps;
  let persistErrors = 0;
  const persist = (what: string, write: () => void) => {
    try {
      write();
    } catch (err) {
      persistErrors++;
      deps.logger?.error({ err, sessionId: session.id }, `could not store the ${what}`);
    }
  };
  const tools = await deps.tools.toolViewFor(CLI_PLATFORM);
  const system = session.systemPrompt;
  const ephemeralPrompt = config.agent.ephemeral_prompt;
  const cc = deps.compression.enabled ? deps.compression.forTurn(session.state, { system, ephemeralPrompt, tools: tools.schemas }) : null;
  const emit = (e: LoopEvent) => {
    // Stored at once (the CLI persists as it goes): every later message belongs to the child session.
    if (e.type === "compression") persist("compressed session", () => moveToChild(store, session, e.history));
    if (e.type === "message") persist("message", () => store.messages.append(session.id, e.message));
    if (e.type === "usage") persist("usage", () => store.sessions.addUsage(session.id, { ...e.usage, api_calls: 1 }));
    io.emit(e);
  };
  const budget = new IterationBudget(config.agent.max_turns);
  const options = loopOptionsFromConfig(config, {
    model: config.model.model,
    budget,
    logger: deps.logger,
    ...(cc ? { compress: cc.compress, contextLength: cc.contextLength } : {}),
  });
  const result = await runAgentLoop(
    { system, ephemeralPrompt, history: session.history, userMessage: input, tools, context: { ...cliToolContext(deps, session, io), agent: cliRun(budget, config.model.model, deps.tools.resolve(CLI_PLATFORM).requested, tools, io) } },
    options,
    emit,
    signal,
    deps.provider.stream,
  );
  session.history = result.history;
  return { result, persistErrors };
}

/** The turn's AgentRun: subagents' tool calls show up on the terminal like the turn's own. */
function cliRun(budget: IterationBudget, model: string, toolsets: readonly string[], tools: ToolView, io: TurnIo): AgentRun {
  return topLevelRun({
    budget,
    model,
    toolsets,
    tools,
    progress: (p) => {
      const e = subagentLoopEvent(p);
      if (e) io.emit(e);
    },
  });
}

/** Ends the session ("compressed") and continues in a child that starts from `history`. */
function moveToChild(store: Store, session: ChatSession, history: readonly Message[]): void {
  const childId = writeCompaction(store, { parentId: session.id, messages: history });
  session.id = childId;
  session.systemPrompt = childSystemPrompt(session.systemPrompt);
}

/**
 * `/compress [focus]`: compresses the conversation now, whatever its size,
 * and continues in a child session. Returns the line to show.
 */
export async function compressSession(deps: ChatDeps, session: ChatSession, focus: string | undefined, signal: AbortSignal): Promise<string> {
  const c: Compacted | null = await deps.compression.compress(session.history, session.state, signal, { force: true, focus });
  if (!c) return `Nothing to compress yet (${session.history.length} messages).`;
  moveToChild(deps.store, session, c.history);
  session.history = c.history;
  return `${compactionLine(c)} Continuing in session ${session.id}.`;
}
