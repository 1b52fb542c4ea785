/**
 * Environment variables that override config.yaml (Hermes Agent's `.env` convention).
 * Lists are comma-separated. Only the gateway passes an environment in.
 */
export interface EnvOverride {
  readonly env: string;
  readonly path: readonly string[];
  readonly parse?: (v: string) => unknown;
}

const list = (v: string) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
const bool = (v: string) => ["1", "true", "yes", "on"].includes(v.trim().toLowerCase());
const int = (v: string) => (/^\d+$/.test(v.trim()) ? Number(v.trim()) : v);

const TG = ["gateway", "platforms", "telegram"];
const DC = ["gateway", "platforms", "discord"];
const SL = ["gateway", "platforms", "slack"];
const API = ["gateway", "platforms", "api"];

export const ENV_OVERRIDES: readonly EnvOverride[] = [
  { env: "HERMES_PROVIDER", path: ["model", "provider"] },
  { env: "HERMES_MODEL", path: ["model", "model"] },
  { env: "HERMES_BASE_URL", path: ["model", "base_url"] },
  { env: "HERMES_API_MODE", path: ["model", "api_mode"] },
  { env: "OPENAI_API_KEY", path: ["providers", "openai", "api_key"] },
  { env: "OPENAI_BASE_URL", path: ["providers", "openai", "base_url"] },
  { env: "ANTHROPIC_API_KEY", path: ["providers", "anthropic", "api_key"] },
  { env: "ANTHROPIC_BASE_URL", path: ["providers", "anthropic", "base_url"] },
  { env: "OPENROUTER_API_KEY", path: ["providers", "openrouter", "api_key"] },
  { env: "OPENROUTER_BASE_URL", path: ["providers", "openrouter", "base_url"] },
  { env: "HERMES_MAX_TURNS", path: ["agent", "max_turns"], parse: int },
  { env: "HERMES_APPROVAL_MODE", path: ["approvals", "mode"] },
  { env: "HERMES_LOG_LEVEL", path: ["logging", "level"] },
  { env: "HERMES_LOG_FORMAT", path: ["logging", "format"] },
  { env: "HERMES_HTTP_HOST", path: ["gateway", "http", "host"] },
  { env: "HERMES_HTTP_PORT", path: ["gateway", "http", "port"], parse: int },
  { env: "HERMES_GATEWAY_BUSY_INPUT_MODE", path: ["gateway", "busy_input_mode"] },
  { env: "GATEWAY_ALLOWED_USERS", path: ["gateway", "allowed_users"], parse: list },
  { env: "GATEWAY_ALLOW_ALL_USERS", path: ["gateway", "allow_all_users"], parse: bool },
  { env: "TELEGRAM_BOT_TOKEN", path: [...TG, "token"] },
  { env: "TELEGRAM_API_ROOT", path: [...TG, "api_root"] },
  { env: "TELEGRAM_ALLOWED_USERS", path: [...TG, "allowed_users"], parse: list },
  { env: "TELEGRAM_ALLOW_ALL_USERS", path: [...TG, "allow_all_users"], parse: bool },
  { env: "TELEGRAM_GROUP_ALLOWED_USERS", path: [...TG, "group_allowed_users"], parse: list },
  { env: "TELEGRAM_GROUP_ALLOWED_CHATS", path: [...TG, "group_allowed_chats"], parse: list },
  { env: "TELEGRAM_REQUIRE_MENTION", path: [...TG, "require_mention"], parse: bool },
  { env: "TELEGRAM_WEBHOOK_URL", path: [...TG, "webhook_url"] },
  { env: "TELEGRAM_WEBHOOK_SECRET", path: [...TG, "webhook_secret"] },
  { env: "TELEGRAM_HOME_CHANNEL", path: [...TG, "home_channel"] },
  { env: "DISCORD_BOT_TOKEN", path: [...DC, "token"] },
  { env: "DISCORD_API_URL", path: [...DC, "api_url"] },
  { env: "DISCORD_GATEWAY_URL", path: [...DC, "gateway_url"] },
  { env: "DISCORD_ALLOWED_USERS", path: [...DC, "allowed_users"], parse: list },
  { env: "DISCORD_ALLOWED_ROLES", path: [...DC, "allowed_roles"], parse: list },
  { env: "DISCORD_ALLOWED_CHANNELS", path: [...DC, "allowed_channels"], parse: list },
  { env: "DISCORD_REQUIRE_MENTION", path: [...DC, "require_mention"], parse: bool },
  { env: "DISCORD_HOME_CHANNEL", path: [...DC, "home_channel"] },
  { env: "DISCORD_ALLOW_ALL_USERS", path: [...DC, "allow_all_users"], parse: bool },
  { env: "DISCORD_IGNORED_CHANNELS", path: [...DC, "ignored_channels"], parse: list },
  { env: "DISCORD_FREE_RESPONSE_CHANNELS", path: [...DC, "free_response_channels"], parse: list },
  { env: "DISCORD_AUTO_THREAD", path: [...DC, "auto_thread"], parse: bool },
  { env: "DISCORD_ALLOW_BOTS", path: [...DC, "allow_bots"] },
  { env: "DISCORD_COMMAND_GUILDS", path: [...DC, "command_guilds"], parse: list },
  { env: "DISCORD_CATCHUP_MINUTES", path: [...DC, "catchup_minutes"], parse: int },
  { env: "SLACK_BOT_TOKEN", path: [...SL, "bot_token"] },
  { env: "SLACK_APP_TOKEN", path: [...SL, "app_token"] },
  { env: "SLACK_SIGNING_SECRET", path: [...SL, "signing_secret"] },
  { env: "SLACK_API_URL", path: [...SL, "api_url"] },
  { env: "SLACK_ALLOWED_USERS", path: [...SL, "allowed_users"], parse: list },
  { env: "SLACK_ALLOWED_CHANNELS", path: [...SL, "allowed_channels"], parse: list },
  { env: "SLACK_REQUIRE_MENTION", path: [...SL, "require_mention"], parse: bool },
  { env: "SLACK_HOME_CHANNEL", path: [...SL, "home_channel"] },
  { env: "SLACK_TRANSPORT", path: [...SL, "transport"] },
  { env: "SLACK_ALLOW_ALL_USERS", path: [...SL, "allow_all_users"], parse: bool },
  { env: "SLACK_FREE_RESPONSE_CHANNELS", path: [...SL, "free_response_channels"], parse: list },
  { env: "SLACK_ALLOW_BOTS", path: [...SL, "allow_bots"] },
  { env: "API_SERVER_KEY", path: [...API, "key"] },
  { env: "SEARXNG_URL", path: ["web", "searxng", "url"] },
  { env: "BRAVE_API_KEY", path: ["web", "brave", "api_key"] },
  { env: "TAVILY_API_KEY", path: ["web", "tavily", "api_key"] },
];
