/**
 * Context compression end to end, for the gateway runtime (the daemon's and
 * the chat CLI's). The agent core owns the algorithm (ContextCompressor);
 * this module supplies what only the composition root knows — the summary
 * model (the auxiliary client's "compression" task, which falls back to the
 * main model; when every call fails the compressor writes its static notice),
 * the context window of the model in use — and turns a compression into
 * session lineage: the old session ends with reason "compressed", a child
 * session (parent link, same frozen prompt plus COMPRESSION_SYSTEM_NOTE)
 * starts from the compressed history, the session route moves to it, and the
 * todo list is re-injected once.
 *
 * When compression runs (as in Hermes Agent):
 * - inside the loop, preflight, once the estimate reaches the trigger
 *   (compression.threshold of the window less the reserved output, with Hermes
 *   Agent's floor and cap: agent/compression/threshold.ts), and once more,
 *   forced, after a context-overflow error;
 * - in the gateway between turns, when the stored history passes
 *   compression.gateway_threshold (0.85) of that budget — the safety net for sessions that
 *   grew past the loop's threshold (a smaller fallback model, a resumed session);
 * - on demand (`/compress [focus topic]`), whatever the size.
 * `compression.enabled: false` turns off the automatic kinds only.
 */
import type { Logger } from "pino";
import { compressionTriggerTokens, inputBudget } from "../../agent/compression/threshold.js";
import { estimateSchemaTokens, estimateTextTokens } from "../../agent/history/tokens.js";
import {
  COMPRESSION_SYSTEM_NOTE,
  type CompressFn,
  type CompressionOutcome,
  ContextCompressor,
  estimateTokens,
  type LoopEvent,
  type Summarizer,
} from "../../agent/index.js";
import type { AuxiliaryClient, AuxTask } from "../../agent/providers/index.js";
import type { Message, SessionToolState, ToolSchema } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import type { Config } from "../../config/index.js";
import { createTodoTracker, hydrateTodosFromHistory, readTodos } from "../../tools/todo/index.js";
import type { RuntimeHooks } from "../runtime/ports.js";
import type { Store } from "../store/index.js";

export const COMPRESSED_END_REASON = "compressed";
export const COMPRESS_RACED = "The conversation moved on while I was compressing it, so nothing was changed. Send /compress again once I'm idle.";

/** Where a session keeps its compressor (previous summary, anti-thrashing count) between turns. */
const COMPRESSOR_KEY = "gateway.compression.compressor";

interface SessionCompressor {
  readonly compressor: ContextCompressor;
  /** The fixed prompt size it was built with (see #sessionCompressor). */
  readonly fixedTokens: number;
}

export interface CompressionDeps {
  readonly config: Config;
  /** The auxiliary client; without one every summary falls back to the static notice. */
  readonly auxiliary: AuxiliaryClient | undefined;
  /**
   * The context window a request naming `model` gets now (ProviderRuntime.contextLengthFor);
   * without a model, that of the configured one (ProviderRuntime.activeTarget().contextLength).
   */
  contextLength(model?: string): number;
  readonly logger?: Logger | undefined;
}

/** One compression that changed the history. */
export interface Compacted {
  /** The compressed history, the todo list re-injected at its end when there is one. */
  readonly history: readonly Message[];
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** The summary call failed and the static notice stands in. */
  readonly fallbackUsed: boolean;
  readonly failure: string | undefined;
}

export interface CompressOptions {
  /** Summarize the middle even below the threshold (on demand, after an overflow). */
  readonly force?: boolean;
  readonly focus?: string | undefined;
  /** Tokens the loop counts besides the history (system prompt, tool schemas); see #sessionCompressor. */
  readonly fixedTokens?: number;
  /** The model the session talks to (its /model override): its window sets the thresholds. */
  readonly model?: string | undefined;
}

/** A summarizer on an auxiliary task, "compression" unless told (its chain ends at the main model). Throws on failure. */
export function auxiliarySummarizer(aux: AuxiliaryClient | undefined, task: AuxTask = "compression"): Summarizer {
  return async (request, signal) => {
    if (!aux) throw new Error("no model is configured for summaries");
    const messages: Message[] = [
      { role: "system", content: request.system },
      { role: "user", content: request.prompt },
    ];
    const r = await aux.complete(task, messages, signal, { maxTokens: request.maxTokens });
    if ("error" in r) throw new Error(`${r.error.reason}: ${r.error.message}`);
    return r.text;
  };
}

/** The child session's frozen prompt: the parent's, with the compaction note added once. */
export function childSystemPrompt(parent: string): string {
  if (parent.includes(COMPRESSION_SYSTEM_NOTE)) return parent;
  return parent ? `${parent}\n\n${COMPRESSION_SYSTEM_NOTE}` : COMPRESSION_SYSTEM_NOTE;
}

/** "Compressed: 42 → 9 messages, ~61,200 → ~8,300 tokens." plus a warning when the summary failed. */
export function compactionLine(c: Compacted): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const line = `Compressed: ${c.messagesBefore} → ${c.messagesAfter} messages, ~${n(c.tokensBefore)} → ~${n(c.tokensAfter)} tokens.`;
  return c.fallbackUsed ? `${line} ${fallbackWarning(c)}` : line;
}

export function fallbackWarning(c: Pick<Compacted, "failure">): string {
  return `⚠️ The summary could not be written (${c.failure ?? "unknown error"}); older messages were replaced by a short notice.`;
}

export class Compression {
  readonly #summarize: Summarizer;

  constructor(readonly deps: CompressionDeps) {
    this.#summarize = auxiliarySummarizer(deps.auxiliary);
  }

  /** Automatic compression (preflight, overflow, between turns) is on. */
  get enabled(): boolean {
    return this.deps.config.compression.enabled;
  }

  contextLength(model?: string): number {
    return this.deps.contextLength(model);
  }

  /**
   * Compresses `history`; null when nothing changed (too short, nothing to
   * prune, anti-thrashing). The todo list of `state` is re-injected once.
   */
  async compress(history: readonly Message[], state: SessionToolState, signal: AbortSignal, opts: CompressOptions = {}): Promise<Compacted | null> {
    const ctx = this.contextLength(opts.model);
    let out: CompressionOutcome | null;
    if (opts.force) out = await this.#compressor(ctx, 0).compress(history, signal, opts.focus, true);
    else {
      const session = this.#sessionCompressor(state, ctx, opts.fixedTokens ?? 0);
      // shouldCompress(∞) asks the anti-thrashing counter alone: two ineffective passes in a row switch it off.
      if (!session.shouldCompress(Number.POSITIVE_INFINITY)) return null;
      out = await session.compress(history, signal, opts.focus);
    }
    // An interrupted summary call looks like a failed one; the person stopped it, so nothing changes.
    if (signal.aborted || !out || !worthASession(out)) return null;
    if (out.fallbackUsed) this.deps.logger?.warn({ failure: out.failure, dropped: out.dropped }, "compression summary unavailable; static notice used");
    const todo = todoReinjection(state, history);
    const compressed: readonly Message[] = todo ? [...out.history, { role: "user", content: todo }] : out.history;
    return {
      history: compressed,
      messagesBefore: history.length,
      messagesAfter: compressed.length,
      tokensBefore: out.tokensBefore,
      tokensAfter: estimateTokens(compressed),
      fallbackUsed: out.fallbackUsed,
      failure: out.failure,
    };
  }

  /** Whether the gateway compresses the stored history before a turn (gateway_threshold of the window less the reserved output). */
  needsGatewayCompression(history: readonly Message[], fixedTokens: number, model?: string): boolean {
    const budget = inputBudget(this.contextLength(model), this.deps.config.model.max_tokens);
    return this.enabled && fixedTokens + estimateTokens(history) >= this.deps.config.compression.gateway_threshold * budget;
  }

  /** Whether a request of `tokens` reaches the loop's trigger (see agent/compression/threshold.ts). */
  reachesTrigger(tokens: number, model?: string): boolean {
    const { compression, model: m } = this.deps.config;
    return tokens >= compressionTriggerTokens(this.contextLength(model), compression.threshold, m.max_tokens);
  }

  /** The bookkeeping of one turn; `fixed` describes what the loop counts besides the history. */
  forTurn(state: SessionToolState, fixed: FixedParts): TurnCompression {
    return new TurnCompression(this, state, fixedTokens(fixed), fixed.model);
  }

  /**
   * The session's own compressor, recalibrated to the current window. The loop
   * compares system prompt + tool schemas + history with the trigger, the
   * compressor the history alone; so the compressor is told the fixed part.
   * Otherwise every preflight between the two would be a pass that changes
   * nothing, and two of those switch compression off for good (anti-thrashing)
   * before the history is ever summarized.
   */
  #sessionCompressor(state: SessionToolState, ctx: number, fixedTokens: number): ContextCompressor {
    let s = state.get<SessionCompressor>(COMPRESSOR_KEY);
    if (!s || !(s.compressor instanceof ContextCompressor) || s.fixedTokens !== fixedTokens) {
      // A new prompt size (tools changed) means a new compressor; the previous summary is found again in the history.
      s = { compressor: this.#compressor(ctx, fixedTokens), fixedTokens };
      state.set(COMPRESSOR_KEY, s);
    }
    s.compressor.updateModel(ctx);
    return s.compressor;
  }

  #compressor(ctx: number, fixedTokens: number): ContextCompressor {
    const c = this.deps.config.compression;
    return new ContextCompressor({
      summarize: this.#summarize,
      contextLength: ctx,
      threshold: c.threshold,
      protectFirstN: c.protect_first_n,
      protectLastN: c.protect_last_n,
      summaryTargetRatio: c.summary_target_ratio,
      maxOutputTokens: this.deps.config.model.max_tokens,
      fixedTokens,
    });
  }
}

/** What the loop adds to the history when it estimates a request (see agent/loop/loop-state.ts). */
export interface FixedParts {
  readonly system: string;
  readonly ephemeralPrompt?: string | undefined;
  readonly tools: readonly ToolSchema[];
  /** The model the turn asks for (a session's /model override); absent: the configured one. */
  readonly model?: string | undefined;
}

function fixedTokens(f: FixedParts): number {
  return estimateTextTokens(f.system) + estimateTextTokens(f.ephemeralPrompt ?? "") + estimateSchemaTokens(f.tools);
}

/** Where a turn continues after compressing: the child's starting history and which turn messages precede it. */
export interface TurnSplit {
  readonly history: readonly Message[];
  /** The first `splitAt` messages of the turn belong to the old session; the rest to the child. */
  readonly splitAt: number;
  readonly last: Compacted;
}

/**
 * One turn's compression: the loop's `compress` hook, and the record of where
 * the conversation continues. Feed it every loop event (`observe`).
 */
export class TurnCompression {
  #messages = 0;
  #pending: Compacted | null = null;
  #split: TurnSplit | null = null;

  constructor(
    private readonly owner: Compression,
    private readonly state: SessionToolState,
    readonly fixedTokens: number,
    private readonly model: string | undefined,
  ) {}

  get contextLength(): number {
    return this.owner.contextLength(this.model);
  }

  /** Between turns (gateway): compresses the stored history when it passed gateway_threshold; the turn then starts from it. */
  async beforeTurn(history: readonly Message[], signal: AbortSignal): Promise<readonly Message[]> {
    if (!this.owner.needsGatewayCompression(history, this.fixedTokens, this.model)) return history;
    // Forced: past gateway_threshold the history must shrink even if compression.threshold is set higher.
    const c = await this.owner.compress(history, this.state, signal, { force: true, model: this.model });
    if (!c) return history;
    this.#split = { history: c.history, splitAt: 0, last: c };
    return c.history;
  }

  /**
   * The loop calls this preflight only above its threshold; below it the call
   * can only be the forced one after a context overflow, which must summarize.
   */
  readonly compress: CompressFn = async (history, signal) => {
    const preflight = this.owner.reachesTrigger(this.fixedTokens + estimateTokens(history), this.model);
    const c = await this.owner.compress(history, this.state, signal, { force: !preflight, fixedTokens: this.fixedTokens, model: this.model });
    this.#pending = c;
    return c ? { history: c.history, note: c.fallbackUsed ? fallbackWarning(c) : undefined } : null;
  };

  /** Counts the turn's messages and records each compression the loop applied. */
  observe(e: LoopEvent): void {
    if (e.type === "message") this.#messages++;
    if (e.type === "compression" && this.#pending) {
      // A copy: the event carries the loop's live array, which the rest of the turn appends to.
      this.#split = { history: [...e.history], splitAt: this.#messages, last: this.#pending };
      this.#pending = null;
    }
  }

  /** Where the turn continues, or null when nothing was compressed. */
  get split(): TurnSplit | null {
    return this.#split;
  }
}

/**
 * Each compression starts a new session, so a pass must have summarized
 * something or pruned at least 10 % (the compressor's own "effective" mark);
 * a smaller saving is not worth a new session and the history stays as it is.
 */
function worthASession(out: CompressionOutcome): boolean {
  return out.dropped > 0 || out.tokensAfter <= out.tokensBefore * 0.9;
}

/** The re-injection text (once per compression; the todo checkpoint count restarts). Todos lost to a restart come back from history. */
function todoReinjection(state: SessionToolState, history: readonly Message[]): string | null {
  if (readTodos(state).length === 0) hydrateTodosFromHistory(state, history);
  return createTodoTracker(state).onCompression();
}

// ---------------------------------------------------------------- persistence

export interface CompactionWrite {
  /** The session being compressed; it ends with reason "compressed". */
  readonly parentId: string;
  /** Defaults to a random UUID. */
  readonly childId?: string | undefined;
  /** The child's first messages: the compressed history (and whatever the turn added after it). */
  readonly messages: readonly Message[];
  /** The session key whose route moves to the child; none: no route moves. */
  readonly sessionKey?: string | undefined;
  /** Epoch ms; defaults to the store's clock. */
  readonly at?: number | undefined;
}

/**
 * Records a compression as session lineage, atomically: parent ended
 * ("compressed"), child created with the parent link, the parent's source,
 * user, model and prompt (plus the compaction note), and a numbered title when
 * the parent had one; the child's messages appended; the route moved. Returns
 * the child's id. Throws HGW_ERR_SESSION_NOT_FOUND for an unknown parent.
 */
export function writeCompaction(store: Store, w: CompactionWrite): string {
  return store.transaction(() => {
    const parent = store.sessions.get(w.parentId);
    if (!parent) throw new HermesError("HGW_ERR_SESSION_NOT_FOUND", w.parentId);
    store.sessions.end(parent.id, COMPRESSED_END_REASON, w.at);
    const id = store.sessions.create({
      ...(w.childId ? { id: w.childId } : {}),
      source: parent.source,
      userId: parent.userId,
      model: parent.model,
      modelConfig: parent.modelConfig,
      systemPrompt: childSystemPrompt(parent.systemPrompt ?? ""),
      parentSessionId: parent.id,
      ...(w.at !== undefined ? { startedAt: w.at } : {}),
    });
    if (parent.title) store.sessions.setTitle(id, nextTitle(store, parent.title));
    if (w.messages.length > 0) store.messages.appendMany(id, w.messages);
    if (w.sessionKey) store.routes.set({ sessionKey: w.sessionKey, sessionId: id });
    return id;
  });
}

/** "plan" → "plan #2" → "plan #3": titles are unique, and /resume by title should find the newest part. */
function nextTitle(store: Store, title: string): string {
  const m = /^(.*) #(\d+)$/.exec(title);
  const base = m ? m[1]! : title;
  let n = m ? Number(m[2]) + 1 : 2;
  while (store.sessions.getByTitle(`${base} #${n}`)) n++;
  return `${base} #${n}`;
}

// ---------------------------------------------------------------- /compress

/**
 * The runtime's `compress` hook (`/compress [focus]`): compresses the stored
 * session now, whatever its size, and moves the conversation to the child.
 */
export function compressHook(compression: Compression, store: Store): NonNullable<RuntimeHooks["compress"]> {
  return async (sessionId, signal, req) => {
    const rows = store.messages.list(sessionId);
    const history = rows.map((r) => r.message);
    const c = await compression.compress(history, req.toolState, signal, { force: true, focus: req.focus });
    if (!c) return `Nothing to compress yet (${history.length} messages, ~${estimateTokens(history).toLocaleString("en-US")} tokens).`;
    // The summary took a while: a turn that ran (or runs) meanwhile, /undo or /new would otherwise be lost from the child.
    const now = store.messages.list(sessionId);
    const unchanged = now.length === rows.length && now.at(-1)?.id === rows.at(-1)?.id;
    if (!unchanged || store.routes.get(req.sessionKey)?.sessionId !== sessionId || !req.claim()) return COMPRESS_RACED;
    writeCompaction(store, { parentId: sessionId, messages: c.history, sessionKey: req.sessionKey });
    return compactionLine(c);
  };
}
