/**
 * The compression pipeline, in Hermes Agent's five phases: prune → boundaries →
 * summary → assembly → sanitization, plus the two pieces of state it needs
 * across calls: the previous summary (updated iteratively instead of
 * re-summarized) and the anti-thrashing counter (two compressions in a row
 * that save under 10 % switch compression off for the session).
 */

import { estimateTokens } from "../history/tokens.js";
import type { Message } from "../types.js";
import { assembleCompressed } from "./assemble.js";
import { findBoundaries } from "./boundaries.js";
import { DEFAULT_PRUNE, pruneToolResults } from "./prune.js";
import { buildSummaryRequest, extractSummary, type Summarizer, staticFallbackSummary, summaryBudget } from "./summary.js";
import { clampSummaryTargetRatio, compressionTriggerTokens } from "./threshold.js";

/**
 * The hook the agent loop calls (AgentLoopOptions.compress): replaces the
 * history when it grows past the threshold; returns null to decline (e.g.
 * anti-thrashing).
 */
export type CompressFn = (history: readonly Message[], signal: AbortSignal) => Promise<CompressedHistory | null>;

export interface CompressedHistory {
  readonly history: readonly Message[];
  /** Free-form facts for the caller's event (e.g. whether the static fallback was used). */
  readonly note?: string;
}

export interface CompressorOptions {
  readonly summarize: Summarizer;
  readonly contextLength: number;
  /** config.compression.threshold: share of the input budget that triggers compression (see threshold.ts). */
  readonly threshold: number;
  readonly protectFirstN: number;
  readonly protectLastN: number;
  /** config.compression.summary_target_ratio: the tail's share of the threshold, held to [0.1, 0.8]. */
  readonly summaryTargetRatio: number;
  /** The output each request reserves (model.max_tokens): the prompt's budget is the window less this. */
  readonly maxOutputTokens?: number | undefined;
  /** Tokens every request carries besides the history (system prompt, tool schemas): the history's threshold is lower by that much. */
  readonly fixedTokens?: number | undefined;
}

export interface CompressionOutcome {
  readonly history: readonly Message[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Messages folded into the summary (0 when pruning alone was enough). */
  readonly dropped: number;
  readonly summarized: boolean;
  /** The summarizer failed and the static notice stands in; callers should tell the user. */
  readonly fallbackUsed: boolean;
  readonly failure?: string | undefined;
}

/** However large the fixed part, the history's threshold stays at least this share of the window. */
const MIN_HISTORY_SHARE = 0.05;
const INEFFECTIVE_SAVINGS_PCT = 10;
const MAX_INEFFECTIVE = 2;

export class ContextCompressor {
  #contextLength: number;
  #previousSummary: string | undefined;
  #ineffective = 0;

  constructor(readonly options: CompressorOptions) {
    this.#contextLength = options.contextLength;
  }

  /** History tokens at which compression triggers: the request's trigger less the fixed part. */
  get thresholdTokens(): number {
    const { threshold, maxOutputTokens, fixedTokens } = this.options;
    const trigger = compressionTriggerTokens(this.#contextLength, threshold, maxOutputTokens);
    return Math.max(trigger - (fixedTokens ?? 0), Math.floor(this.#contextLength * MIN_HISTORY_SHARE), 1);
  }

  get tailTokenBudget(): number {
    return Math.floor(this.thresholdTokens * clampSummaryTargetRatio(this.options.summaryTargetRatio));
  }

  /** False below the threshold, and after two ineffective compressions in a row. */
  shouldCompress(tokens: number): boolean {
    return tokens >= this.thresholdTokens && this.#ineffective < MAX_INEFFECTIVE;
  }

  /** Recalibrates after a model switch (e.g. a fallback with a smaller window). */
  updateModel(contextLength: number): void {
    this.#contextLength = contextLength;
  }

  /**
   * Compresses `history`. `force` (on demand, or after the provider said the
   * context overflowed) summarises the middle whatever the size: pruning alone
   * never settles it, and the tail keeps at most the newest ~tenth of the history.
   */
  async compress(history: readonly Message[], signal: AbortSignal, focusTopic?: string, force = false): Promise<CompressionOutcome | null> {
    const before = estimateTokens(history);
    const tail = force
      ? Math.min(this.tailTokenBudget, Math.floor((before / 2) * clampSummaryTargetRatio(this.options.summaryTargetRatio)))
      : this.tailTokenBudget;
    const opts = { protectFirstN: this.options.protectFirstN, protectLastN: this.options.protectLastN, tailTokenBudget: tail };
    const firstCut = findBoundaries(history, opts);
    const pruned = pruneToolResults(history, firstCut.tailStart, DEFAULT_PRUNE).messages;
    if (pruned.length === 0) return null;
    const prunedTokens = estimateTokens(pruned);
    if (prunedTokens < this.thresholdTokens && !focusTopic && !force) return this.#finish(history, pruned, before, 0, false, false);

    const { headEnd, tailStart } = findBoundaries(pruned, opts);
    if (tailStart <= headEnd) {
      if (prunedTokens < before) return this.#finish(history, pruned, before, 0, false, false);
      this.#record(before, before);
      return null;
    }
    const middle = pruned.slice(headEnd, tailStart);
    const previous = middle.map(extractSummary).find((s): s is string => s !== null) ?? this.#previousSummary;
    const turns = middle.filter((m) => extractSummary(m) === null);
    const maxTokens = summaryBudget(estimateTokens(turns), this.#contextLength);
    const summary = await this.#summarize(buildSummaryRequest({ turns, previousSummary: previous, focusTopic, maxTokens }), signal);
    const body = summary.text ?? staticFallbackSummary(middle.length);
    if (summary.text) this.#previousSummary = summary.text;
    const assembled = assembleCompressed(pruned.slice(0, headEnd), body, pruned.slice(tailStart));
    return this.#finish(history, assembled, before, middle.length, summary.text !== null, summary.text === null, summary.failure);
  }

  /** The hook the agent loop takes; declines (null) when anti-thrashing says so. */
  compressFn(): CompressFn {
    return async (history, signal) => {
      if (this.#ineffective >= MAX_INEFFECTIVE) return null;
      const out = await this.compress(history, signal);
      if (!out) return null;
      return {
        history: out.history,
        note: out.fallbackUsed ? `summary unavailable (${out.failure ?? "unknown error"}); ${out.dropped} messages dropped` : undefined,
      };
    };
  }

  async #summarize(request: ReturnType<typeof buildSummaryRequest>, signal: AbortSignal): Promise<{ text: string | null; failure?: string }> {
    try {
      const text = (await this.options.summarize(request, signal)).trim();
      return text ? { text } : { text: null, failure: "the summarizer returned no text" };
    } catch (err) {
      return { text: null, failure: err instanceof Error ? err.message : String(err) };
    }
  }

  #finish(
    original: readonly Message[],
    history: readonly Message[],
    before: number,
    dropped: number,
    summarized: boolean,
    fallbackUsed: boolean,
    failure?: string,
  ): CompressionOutcome {
    const after = estimateTokens(history);
    this.#record(before, after);
    return { history: history === original ? [...original] : history, tokensBefore: before, tokensAfter: after, dropped, summarized, fallbackUsed, failure };
  }

  #record(before: number, after: number): void {
    const savingsPct = before > 0 ? ((before - after) / before) * 100 : 0;
    this.#ineffective = savingsPct < INEFFECTIVE_SAVINGS_PCT ? this.#ineffective + 1 : 0;
  }
}
