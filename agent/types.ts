/**
 * The provider-neutral vocabulary every layer shares, one concept per module
 * under `agent/types/`: messages in Hermes Agent's OpenAI-style format,
 * classified failures, the provider stream and its events, the interfaces
 * through which tools reach the outside world, tool definitions and agent
 * runs, subagents. Importers name this one path. The modules import nothing
 * internal but config types.
 */

export type { CronControl, CronJobInput, CronJobView, CronRunView, DeliveryTargetInfo, MessageResult, Messenger } from "./types/delivery.js";
export type { ClassifiedError, FailoverReason, RequestRepair } from "./types/failures.js";
export { FAILOVER_REASONS } from "./types/failures.js";
export type { AssistantMessage, ContentPart, FinishReason, Message, Role, SystemMessage, ToolCall, ToolMessage, Usage, UserMessage } from "./types/messages.js";
export { ZERO_USAGE } from "./types/messages.js";
export type { ModelRequest, ModelTarget, ProviderEvent, StreamFn, ToolSchema } from "./types/provider-stream.js";
export type { SubagentRequest, SubagentResult, SubagentRunner } from "./types/subagents.js";
export type {
  AgentRun,
  ArgsOf,
  ArgsSchema,
  Clock,
  RunTools,
  SessionToolState,
  SharedBudget,
  SubagentProgress,
  ToolContext,
  ToolDefinition,
} from "./types/tool-definition.js";
export type {
  ApprovalChoice,
  ApprovalDecision,
  ApprovalRequest,
  Approver,
  Clarifier,
  ClarifyAnswer,
  ClarifyRequest,
  SessionSearcher,
  SessionSearchHit,
  SessionSearchQuery,
} from "./types/tool-ports.js";
