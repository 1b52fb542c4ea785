/**
 * The one configuration schema, composed of its sections (one module each:
 * providers, agent, approvals, tools, MCP, platforms, gateway, services).
 * Every default lives in a section; nothing downstream writes `?? default`
 * for a config value. Secrets are tagged with `secret()` so the logger can
 * redact their values wherever they appear.
 */
import * as z from "zod";
import { AgentSchema, CompressionSchema } from "./schema-agent.js";
import { ApprovalsSchema } from "./schema-approvals.js";
import type { DeepReadonly } from "./schema-fields.js";
import { GatewaySchema } from "./schema-gateway.js";
import { McpSchema, McpServerSchema } from "./schema-mcp.js";
import { AuxiliarySchema, FallbackSchema, ModelSchema, PromptCachingSchema, ProviderSchema } from "./schema-providers.js";
import { CronSchema, LoggingSchema, SttSchema } from "./schema-services.js";
import { CodeExecutionSchema, DelegationSchema, MemorySchema, SkillsSchema, WebSchema } from "./schema-tools.js";
import { secret } from "./secret-meta.js";

export type { McpServerConfig } from "./schema-mcp.js";
export type { BusyMode, Platform } from "./schema-platforms.js";
export { BUSY_MODES, BusyModeSchema, PLATFORMS } from "./schema-platforms.js";
export type { ApiMode, AuxTaskConfig, ProviderConfig } from "./schema-providers.js";
export { API_MODES, ApiModeSchema, AUX_TASK_TIMEOUTS_S, AUX_TASKS } from "./schema-providers.js";
export { secret };

export const ConfigSchema = z
  .object({
    model: ModelSchema,
    providers: z.record(z.string(), ProviderSchema).default({}),
    fallback_providers: z.array(FallbackSchema).default([]),
    prompt_caching: PromptCachingSchema,
    agent: AgentSchema,
    compression: CompressionSchema,
    auxiliary: AuxiliarySchema,
    approvals: ApprovalsSchema,
    /** Toolsets enabled for the CLI; platforms use `platform_toolsets` or their `hermes-<platform>` bundle. */
    toolsets: z.array(z.string()).default(["hermes-cli"]),
    platform_toolsets: z.record(z.string(), z.array(z.string())).default({}),
    disabled_toolsets: z.array(z.string()).default([]),
    disabled_tools: z.array(z.string()).default([]),
    mcp: McpSchema,
    mcp_servers: z.record(z.string(), McpServerSchema).default({}),
    memory: MemorySchema,
    skills: SkillsSchema,
    web: WebSchema,
    delegation: DelegationSchema,
    code_execution: CodeExecutionSchema,
    gateway: GatewaySchema,
    stt: SttSchema,
    cron: CronSchema,
    logging: LoggingSchema,
  })
  .strict();

export type ConfigInput = z.input<typeof ConfigSchema>;
type Parsed = z.infer<typeof ConfigSchema>;

/** The validated, fully defaulted, frozen configuration. */
export type Config = DeepReadonly<Parsed & { home: string; configPath: string | null }>;
export type TelegramConfig = Config["gateway"]["platforms"]["telegram"];
export type DiscordConfig = Config["gateway"]["platforms"]["discord"];
export type SlackConfig = Config["gateway"]["platforms"]["slack"];
export type ApiPlatformConfig = Config["gateway"]["platforms"]["api"];
