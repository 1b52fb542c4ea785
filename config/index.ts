export { ENV_OVERRIDES } from "./env.js";
export type { BuildInput, ConfigProblem, LoadOptions } from "./load.js";
export { buildConfig, ConfigError, formatProblems, loadConfig } from "./load.js";
export type {
  ApiMode,
  ApiPlatformConfig,
  AuxTaskConfig,
  BusyMode,
  Config,
  ConfigInput,
  DiscordConfig,
  McpServerConfig,
  Platform,
  ProviderConfig,
  SlackConfig,
  TelegramConfig,
} from "./schema.js";
export { API_MODES, AUX_TASK_TIMEOUTS_S, AUX_TASKS, BUSY_MODES, ConfigSchema, PLATFORMS, secret } from "./schema.js";
export { collectSecrets } from "./secrets.js";
