/**
 * The agent core's public surface: the loop, the tool registry and toolsets,
 * system prompt assembly, compression and trajectory export.
 */
export * from "./types.js";
export { runAgentLoop } from "./loop/run-agent-loop.js";
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
export { loopOptionsFromConfig, type LoopOverrides } from "./loop/options.js";
export { IterationBudget, budgetPressureNote, budgetExhaustedNote, FORCED_SUMMARY_PROMPT } from "./loop/budget.js";
export { SteerQueue, formatSteerNote, STEER_MARKER_OPEN, STEER_MARKER_CLOSE } from "./loop/steer.js";
export { GuardrailController, callSignature, canonicalJson, type GuardrailDecision, type GuardrailSettings, type GuardrailCode } from "./loop/guardrails.js";
export { isUnattended, resultLooksFailed } from "./loop/guardrail-policy.js";
export { repairHistory, canAppend } from "./history/alternation.js";
export { repairToolArguments, type RepairedArguments } from "./loop/tool-args.js";
export { estimateTokens, estimateMessageTokens } from "./history/tokens.js";
export type { ToolOutcome } from "./loop/tool-outcome.js";

export { ToolRegistry, AVAILABILITY_TTL_MS, type ToolRegistryOptions, type RegisterOptions, type SchemaOverride } from "./tools/registry.js";
export { makeToolView, type ToolView, type ViewEntry, type AnyToolDefinition } from "./tools/tool-view.js";
export { ArgsCompiler, type ArgsCheck, type ArgsValidator, type SchemaOrigin } from "./tools/args-compiler.js";
export { formatIssues, type SchemaIssue } from "./tools/args-issues.js";
export {
  STATIC_TOOLSETS,
  CORE_TOOLSETS,
  PLATFORM_BUNDLES,
  GATEWAY_TOOLSETS,
  buildToolsetCatalog,
  expandToolsets,
  findToolsetCycle,
  requestedToolsets,
  resolveToolsets,
  type ToolsetSpec,
  type ToolsetCatalog,
  type ToolExclusions,
  type ExpandedToolsets,
  type ResolvedToolsets,
} from "./tools/toolsets.js";

export {
  assembleSystemPrompt,
  buildSystemPrompt,
  loadPromptFiles,
  PROMPT_LAYERS,
  type PromptFileInput,
  type PromptLayerInput,
  type PromptFiles,
  type SystemPromptInput,
  type BuiltSystemPrompt,
  type BlockedFile,
  blockedFileNotice,
  type PromptLayer,
  type PromptLayerName,
} from "./prompt/build-system-prompt.js";
export { buildSessionContext, type SessionContextData } from "./prompt/session-context.js";
export { localEnvironment, environmentHint, type EnvironmentFacts } from "./prompt/environment.js";
export { loadContextFiles, CONTEXT_FILE_MAX_CHARS, type ContextFile } from "./prompt/context-files.js";
export { scanForInjection, screenContextFile } from "./prompt/injection-scan.js";
export { PLATFORM_HINTS, platformHint } from "./prompt/platform-hints.js";

export { ContextCompressor, type CompressFn, type CompressedHistory, type CompressorOptions, type CompressionOutcome } from "./compression/compressor.js";
export { COMPRESSION_SYSTEM_NOTE, SUMMARY_PREFIX, type Summarizer, type SummaryRequest } from "./compression/summary.js";

export { toShareGpt, trajectoryEntry, trajectoryLine, appendTrajectory, type ShareGptConversation, type ShareGptTurn, type TrajectoryEntry } from "./trajectory.js";
