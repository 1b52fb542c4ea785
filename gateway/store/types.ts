/**
 * Records the store returns and accepts. Every time is epoch ms (the columns
 * keep Hermes Agent's epoch seconds: see epoch.ts); the store's clock is
 * injectable.
 */
import type { Message, Usage } from "../../agent/types.js";

export type { NewSession } from "../records.js";

export interface SessionRecord {
  readonly id: string;
  /** Platform the session came from: "cli", "telegram", "discord", … */
  readonly source: string;
  readonly userId: string | null;
  readonly model: string | null;
  /** Parsed model_config JSON. */
  readonly modelConfig: unknown;
  /** Frozen at session start (prompt caching depends on it never changing). */
  readonly systemPrompt: string | null;
  /** The session this one was compressed from. */
  readonly parentSessionId: string | null;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly endReason: string | null;
  readonly title: string | null;
  readonly messageCount: number;
  readonly toolCallCount: number;
  readonly apiCallCount: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
  readonly estimatedCostUsd: number | null;
  readonly actualCostUsd: number | null;
  readonly billingProvider: string | null;
  readonly billingBaseUrl: string | null;
  readonly billingMode: string | null;
  readonly costStatus: string | null;
  readonly costSource: string | null;
  readonly pricingVersion: string | null;
}

export interface SessionListItem extends SessionRecord {
  /** The first user message, cut to 120 characters. */
  readonly preview: string | null;
}

/** Token and cost counters to ADD to a session; text fields replace when given. */
export interface UsageDelta extends Partial<Usage> {
  readonly api_calls?: number;
  readonly estimated_cost_usd?: number;
  readonly actual_cost_usd?: number;
  readonly billing_provider?: string;
  readonly billing_base_url?: string;
  readonly billing_mode?: string;
  readonly cost_status?: string;
  readonly cost_source?: string;
  readonly pricing_version?: string;
}

export interface AppendMeta {
  /** Epoch ms; defaults to now. */
  readonly timestamp?: number;
  /** Estimated tokens of this message. */
  readonly tokenCount?: number;
}

export interface StoredMessage {
  readonly id: number;
  readonly sessionId: string;
  readonly timestamp: number;
  readonly tokenCount: number | null;
  readonly message: Message;
}
