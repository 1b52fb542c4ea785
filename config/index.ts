export { ConfigSchema, secret, API_MODES, BUSY_MODES, PLATFORMS, AUX_TASKS, AUX_TASK_TIMEOUTS_S } from "./schema.js";
export type { Config, ConfigInput, ApiMode, BusyMode, Platform, ProviderConfig, AuxTaskConfig, McpServerConfig, TelegramConfig, DiscordConfig, SlackConfig, ApiPlatformConfig } from "./schema.js";
export { loadConfig, buildConfig, ConfigError, formatProblems } from "./load.js";
export type { ConfigProblem, LoadOptions, BuildInput } from "./load.js";
export { collectSecrets } from "./secrets.js";
export { ENV_OVERRIDES } from "./env.js";
