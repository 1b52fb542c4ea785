/**
 * The prompt builder port: a session's system prompt, built once and then
 * frozen in the store.
 */

export interface PromptContext {
  readonly platform: string;
  /** The built-in hint plus the configured one. */
  readonly platformHint: string;
  /** Only the platform block's configured `hint` (for builders that add their own built-in hint). */
  readonly configuredHint: string | null;
  /** The "## Current Session Context" block. */
  readonly sessionContext: string;
  readonly toolsets: readonly string[];
  readonly model: string;
}

/** A session's system prompt, and what the person should be told about it (a context file left out). */
export interface SessionPrompt {
  readonly text: string;
  readonly notices: readonly string[];
}

/** Builds the system prompt once per session; it is then frozen in the store. */
export interface PromptBuilder {
  build(ctx: PromptContext, signal?: AbortSignal): Promise<SessionPrompt>;
}
