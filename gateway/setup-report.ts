/**
 * What is configured and what is missing, one clear line per platform and
 * provider. Used by `doctor` and logged at startup so a fresh install says
 * precisely what to configure next.
 */
import type { Config } from "../config/index.js";
import { terminalSafe } from "./terminal-text.js";

export interface SetupLine {
  readonly subject: string;
  readonly status: "ok" | "missing" | "disabled" | "error";
  readonly message: string;
}

const PROVIDER_ENV: Readonly<Record<string, string>> = {
  openrouter: "OPENROUTER_API_KEY",
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
};

/** True when the provider can be called: a key, or a base URL (local servers often need no key). */
export function providerReady(config: Config, name: string): boolean {
  const p = config.providers[name];
  const isMain = config.model.provider === name;
  return Boolean((isMain && (config.model.api_key || config.model.base_url)) || p?.api_key || p?.api_keys.length || p?.base_url);
}

export function setupReport(config: Config): SetupLine[] {
  const lines: SetupLine[] = [];
  const main = config.model.provider;
  lines.push(
    providerReady(config, main)
      ? { subject: `provider ${main}`, status: "ok", message: `model ${config.model.model}` }
      : {
          subject: `provider ${main}`,
          status: "missing",
          message: `no API key: set ${PROVIDER_ENV[main] ?? `providers.${main}.api_key`} (or model.api_key / model.base_url in config.yaml)`,
        },
  );
  for (const fb of config.fallback_providers) {
    const ok = Boolean(fb.api_key || fb.base_url || providerReady(config, fb.provider));
    lines.push({
      subject: `fallback ${fb.provider}`,
      status: ok ? "ok" : "missing",
      message: ok ? `model ${fb.model}` : `no API key for fallback provider ${fb.provider}`,
    });
  }
  const p = config.gateway.platforms;
  lines.push(
    platformLine(
      "telegram",
      p.telegram.enabled,
      Boolean(p.telegram.token),
      "set TELEGRAM_BOT_TOKEN (or gateway.platforms.telegram.token)",
      p.telegram.allowed_users.length + config.gateway.allowed_users.length,
      p.telegram.allow_all_users || config.gateway.allow_all_users,
    ),
  );
  lines.push(
    platformLine(
      "discord",
      p.discord.enabled,
      Boolean(p.discord.token),
      "set DISCORD_BOT_TOKEN (or gateway.platforms.discord.token)",
      p.discord.allowed_users.length + p.discord.allowed_roles.length + config.gateway.allowed_users.length,
      p.discord.allow_all_users || config.gateway.allow_all_users,
    ),
  );
  lines.push(slackLine(config));
  lines.push(
    !p.api.enabled
      ? { subject: "platform api", status: "disabled", message: "set API_SERVER_KEY to serve the OpenAI-compatible API on the HTTP port" }
      : { subject: "platform api", status: "ok", message: `POST http://${config.gateway.http.host}:${config.gateway.http.port}/v1/chat/completions` },
  );
  return lines;
}

function platformLine(name: string, enabled: boolean, hasCredential: boolean, howTo: string, allowCount: number, allowAll: boolean): SetupLine {
  const subject = `platform ${name}`;
  if (!hasCredential) return { subject, status: enabled ? "missing" : "disabled", message: enabled ? `enabled but ${howTo}` : `not configured: ${howTo}` };
  if (!enabled) return { subject, status: "disabled", message: "credential present but enabled: false" };
  const who = allowAll
    ? "everyone may use it"
    : allowCount > 0
      ? `${allowCount} allowlisted user(s)`
      : "nobody is allowlisted yet: new users get a pairing code (hermes-gateway pairing approve)";
  return { subject, status: "ok", message: who };
}

/** Slack also needs the credential of its transport: an app-level token for Socket Mode, the signing secret for HTTP events. */
function slackLine(config: Config): SetupLine {
  const s = config.gateway.platforms.slack;
  const line = platformLine(
    "slack",
    s.enabled,
    Boolean(s.bot_token),
    "set SLACK_BOT_TOKEN (or gateway.platforms.slack.bot_token)",
    s.allowed_users.length + config.gateway.allowed_users.length,
    s.allow_all_users || config.gateway.allow_all_users,
  );
  if (line.status !== "ok") return line;
  if (s.transport === "socket" && !s.app_token)
    return {
      ...line,
      status: "missing",
      message: "Socket Mode needs an app-level token: set SLACK_APP_TOKEN (xapp-…, scope connections:write), or use transport: http",
    };
  if (s.transport === "http" && !s.signing_secret)
    return { ...line, status: "missing", message: "HTTP events need the app's signing secret: set SLACK_SIGNING_SECRET" };
  return { ...line, message: `${s.transport === "socket" ? "Socket Mode" : `HTTP events at ${s.http_path}`}; ${line.message}` };
}

export function formatSetupLines(lines: readonly SetupLine[]): string {
  const mark = { ok: "✓", missing: "✗", disabled: "·", error: "✗" } as const;
  return lines.map((l) => `${mark[l.status]} ${terminalSafe(l.subject).padEnd(20)} ${terminalSafe(l.message)}`).join("\n");
}
