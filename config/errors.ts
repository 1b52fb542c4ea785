/**
 * The one catalog of coded errors. Codes are never reused; each message is
 * written for the person reading the log or the chat, with the fix where it helps.
 * Add new codes at the end of the section for your area.
 */

export const ERRORS = {
  // config and startup
  HGW_ERR_CONFIG_INVALID: "The configuration is invalid. Fix the listed keys and start again.",
  HGW_ERR_CONFIG_NOT_FOUND: "The config file given with --config does not exist.",
  HGW_ERR_HOME_UNWRITABLE: "HERMES_HOME is not writable. Point HERMES_HOME at a directory this user owns.",
  HGW_ERR_HTTP_LISTEN:
    "The HTTP server could not listen on the configured host and port (gateway.http.host and gateway.http.port, or HERMES_HTTP_HOST and HERMES_HTTP_PORT).",
  HGW_ERR_INSTANCE_RUNNING: "Another hermes-gateway is already running with this HERMES_HOME.",
  HGW_ERR_PORT_IN_USE:
    "The HTTP port is already in use by another process. Stop that process, or give this gateway another port: gateway.http.port in config.yaml, or HERMES_HTTP_PORT.",
  // store
  HGW_ERR_STORE_OPEN: "The session store could not be opened.",
  HGW_ERR_STORE_BUSY: "The session store stayed locked by another process; the write was retried and gave up.",
  HGW_ERR_STORE_MIGRATION: "A session store migration failed; the database was left at its previous version.",
  HGW_ERR_STORE_NEWER_SCHEMA: "The session store was written by a newer hermes-gateway; upgrade before opening it.",
  HGW_ERR_TITLE_TAKEN: "Another session already has that title.",
  HGW_ERR_SESSION_NOT_FOUND: "No session with that id.",
  HGW_ERR_STORE_FULL:
    "The disk holding the session store is full (or the database reached its size limit): nothing new can be saved until space is freed. What was saved before is intact, and the gateway recovers by itself when there is room again.",
  // providers and agent
  HGW_ERR_PROVIDER_NOT_CONFIGURED: "No model provider is configured. Set model.provider and an API key (e.g. OPENROUTER_API_KEY).",
  HGW_ERR_CREDENTIALS_EXHAUSTED: "Every credential for this provider is exhausted or rejected.",
  HGW_ERR_AUTH_STORE_CORRUPT:
    "HERMES_HOME/auth.json is not valid JSON. It was left untouched and credential cooldowns are kept in memory only; fix or delete the file.",
  HGW_ERR_TOOL_UNKNOWN: "The model called a tool that does not exist.",
  HGW_ERR_TOOL_CONFLICT: "A tool with that name is already registered by another toolset.",
  HGW_ERR_TOOL_SCHEMA:
    "A tool definition is malformed: its schema name must match the tool name and its parameters must be a JSON Schema object that ajv compiles in strict mode (no unknown keywords, every required name a property).",
  HGW_ERR_TOOLSET_CYCLE: "Toolset `includes` form a cycle; remove one of the listed includes.",
  HGW_ERR_PROVIDER_POLICY_BLOCKED:
    "The provider's account policy excludes every endpoint that serves this model (on OpenRouter: the privacy and data settings at https://openrouter.ai/settings/privacy). Change that setting or choose another model; retrying or another key will not help.",
  HGW_ERR_TLS_CERTIFICATE:
    "The provider's TLS certificate could not be verified (an intercepting proxy, a self-signed or expired certificate, or a missing CA). Fix the trust store (NODE_EXTRA_CA_CERTS) or the base_url; retrying will not help.",
  // tools
  HGW_ERR_COMMAND_BLOCKED: "The command is on the unconditional blocklist and will never run.",
  HGW_ERR_COMMAND_DENIED: "The command was not approved.",
  HGW_ERR_NO_APPROVAL_CHANNEL: "The command needs approval and there is no one to ask, so it was refused.",
  HGW_ERR_APPROVAL_SEND_FAILED: "The approval request could not be delivered to anyone, so the command was refused.",
  HGW_ERR_COMMAND_TIMEOUT: "The command ran longer than its timeout; its whole process group was killed.",
  HGW_ERR_COMMAND_SPAWN: "The command could not be started (no shell, or the working directory does not exist).",
  HGW_ERR_PROCESS_NOT_FOUND: "No background process with that id in this session.",
  HGW_ERR_FILE_LOCK_TIMEOUT: "Another process kept a HERMES_HOME file (memory or skill) locked for too long; the change was not applied. Try again.",
  HGW_ERR_ALLOWLIST_WRITE:
    'The "always" approval could not be saved to approvals.allowlist in the config file; it applies to this session only. Fix the file (it must be valid YAML with approvals.allowlist a list) or add the command by hand.',
  HGW_ERR_WEB_URL_BLOCKED:
    "The URL was not fetched: it is not http(s), carries credentials, or points at a private, loopback, link-local or otherwise non-public address. Set web.allow_private_urls: true to let the agent reach an intranet.",
  HGW_ERR_WEB_FETCH: "The page could not be fetched.",
  HGW_ERR_WEB_CONTENT: "The page's content cannot be turned into text.",
  HGW_ERR_WEB_SEARCH: "The web search backend failed.",
  HGW_ERR_DELEGATION_REFUSED: "delegate_task refused the request.",
  HGW_ERR_CODE_EXEC_UNAVAILABLE: "execute_code has no interpreter: set code_execution.python to a working Python 3, or code_execution.language: node.",
  HGW_ERR_CODE_EXEC_FAILED: "The script could not be run.",
  // gateway runtime
  HGW_ERR_UNAUTHORIZED: "This user is not allowed to use the bot.",
  HGW_ERR_ADAPTER_START: "A platform adapter could not connect.",
  HGW_ERR_DELIVERY_FAILED: "A reply could not be delivered after several attempts.",
  HGW_ERR_APPROVAL_RESOLVED: "This approval has already been resolved.",
  HGW_ERR_ADAPTER_AUTH:
    "The platform rejected the bot's token, so the adapter does not retry. Put a valid token in the config (or its environment variable) and restart.",
  HGW_ERR_DISCORD_INTENTS:
    "Discord refused the Message Content intent. Enable it in the Developer Portal (your application → Bot → Privileged Gateway Intents → Message Content Intent) and restart.",
  HGW_ERR_TARGET_INVALID: "That delivery target is not valid. Use origin, a platform name (its home channel), or platform:chat_id[:thread_id].",
  HGW_ERR_TARGET_NOT_ALLOWED:
    "That chat is not one the configuration allows messages to (the current chat, a home channel, or a chat listed in the platform's allowlists).",
  HGW_ERR_TARGET_NO_HOME: "That platform has no home channel. Send /sethome in the chat that should be it, or set gateway.platforms.<platform>.home_channel.",
  HGW_ERR_PLATFORM_NOT_CONNECTED: "That platform is not connected right now; nothing was sent.",
  // scheduled jobs
  HGW_ERR_CRON_SCHEDULE:
    'That schedule is not valid. Use a cron expression ("0 9 * * *"), an interval ("every 30m"), a delay ("45m") or a time ("2026-12-24T09:00").',
  HGW_ERR_CRON_TIMEZONE: "That time zone is not a valid IANA name (e.g. Europe/Berlin).",
  HGW_ERR_CRON_NOT_FOUND: "No scheduled job with that id.",
  HGW_ERR_CRON_ARGS: "The scheduled job is missing something it needs.",
  // mcp
  HGW_ERR_MCP_CONNECT: "An MCP server could not be started or did not answer initialize in time.",
  HGW_ERR_MCP_LOST: "An MCP server's connection ended unexpectedly (the process exited, wrote garbage to stdout, or its worker failed); it will be restarted.",
  HGW_ERR_MCP_LEFTOVER: "An MCP server process could not be confirmed gone after shutdown. Check for a stray process with the logged pid.",
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** An error that carries a catalog code. `detail` adds the specifics of this occurrence. */
export class HermesError extends Error {
  constructor(
    readonly code: ErrorCode,
    detail?: string,
    options?: { cause?: unknown },
  ) {
    super(detail ? `${ERRORS[code]} ${detail}` : ERRORS[code], options);
    this.name = "HermesError";
  }
}
