/**
 * The agent core's public surface: the loop, the tool registry and toolsets,
 * system prompt assembly, compression and trajectory export.
 */

export { type CompressedHistory, type CompressFn, type CompressionOutcome, type CompressorOptions, ContextCompressor } from "./compression/compressor.js";
export { COMPRESSION_SYSTEM_NOTE, SUMMARY_PREFIX, type Summarizer, type SummaryRequest } from "./compression/summary.js";
export { canAppend, repairHistory } from "./history/alternation.js";
export { estimateMessageTokens, estimateTokens } from "./history/tokens.js";
export { budgetExhaustedNote, budgetPressureNote, FORCED_SUMMARY_PROMPT, IterationBudget } from "./loop/budget.js";
export { isUnattended, resultLooksFailed } from "./loop/guardrail-policy.js";
export { callSignature, canonicalJson, type GuardrailCode, GuardrailController, type GuardrailDecision, type GuardrailSettings } from "./loop/guardrails.js";
export { type LoopOverrides, loopOptionsFromConfig } from "./loop/options.js";
export { runAgentLoop } from "./loop/run-agent-loop.js";
export { formatSteerNote, STEER_MARKER_CLOSE, STEER_MARKER_OPEN, SteerQueue } from "./loop/steer.js";
export { type RepairedArguments, repairToolArguments } from "./loop/tool-args.js";
export type { ToolOutcome } from "./loop/tool-outcome.js";
export type {
  AgentLoopInput,
  AgentLoopOptions,
  AgentLoopResult,
  LoopEmit,
  LoopEvent,
  LoopStatus,
  StopReason,
  ToolEndInfo,
  ToolVeto,
} from "./loop/types.js";
export {
  assembleSystemPrompt,
  type BlockedFile,
  type BuiltSystemPrompt,
  blockedFileNotice,
  buildSystemPrompt,
  loadPromptFiles,
  PROMPT_LAYERS,
  type PromptFileInput,
  type PromptFiles,
  type PromptLayer,
  type PromptLayerInput,
  type PromptLayerName,
  type SystemPromptInput,
} from "./prompt/build-system-prompt.js";
export { CONTEXT_FILE_MAX_CHARS, type ContextFile, loadContextFiles } from "./prompt/context-files.js";
export { type EnvironmentFacts, environmentHint, localEnvironment } from "./prompt/environment.js";
export { scanForInjection, screenContextFile } from "./prompt/injection-scan.js";
export { PLATFORM_HINTS, platformHint } from "./prompt/platform-hints.js";
export { buildSessionContext, type SessionContextData } from "./prompt/session-context.js";
export { type ArgsCheck, ArgsCompiler, type ArgsValidator, type SchemaOrigin } from "./tools/args-compiler.js";
export { formatIssues, type SchemaIssue } from "./tools/args-issues.js";
export { AVAILABILITY_TTL_MS, type RegisterOptions, type SchemaOverride, ToolRegistry, type ToolRegistryOptions } from "./tools/registry.js";
export { type AnyToolDefinition, makeToolView, type ToolView, type ViewEntry } from "./tools/tool-view.js";
export {
  buildToolsetCatalog,
  CORE_TOOLSETS,
  type ExpandedToolsets,
  expandToolsets,
  findToolsetCycle,
  GATEWAY_TOOLSETS,
  PLATFORM_BUNDLES,
  type ResolvedToolsets,
  requestedToolsets,
  resolveToolsets,
  STATIC_TOOLSETS,
  type ToolExclusions,
  type ToolsetCatalog,
  type ToolsetSpec,
} from "./tools/toolsets.js";
export {
  appendTrajectory,
  type ShareGptConversation,
  type ShareGptTurn,
  type TrajectoryEntry,
  toShareGpt,
  trajectoryEntry,
  trajectoryLine,
} from "./trajectory.js";
export * from "./types.js";
