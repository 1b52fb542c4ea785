/**
 * The daemon's logger: pino JSON lines (human-readable on a terminal), with
 * every secret redacted from the final serialized line — so a token cannot
 * leak through an error message, a URL or a nested field either.
 */
import { createRequire } from "node:module";
import { type DestinationStream, type Logger, pino } from "pino";
import type { Config } from "../config/index.js";

/** Shapes of credentials that are redacted even when they are not in the config. */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\bbot\d{5,}:[A-Za-z0-9_-]{20,}/g, // Telegram token inside an API URL
  /\b\d{5,}:[A-Za-z0-9_-]{30,}\b/g, // bare Telegram token
  /\b(?:sk|rk|pk)-(?:ant-|proj-|or-v1-)?[A-Za-z0-9_-]{16,}/g, // OpenAI / Anthropic / OpenRouter keys
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bxapp-[A-Za-z0-9-]{10,}/g, // Slack app token
  /\b[MNO][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,}/g, // Discord bot token
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /("?(?:authorization|x-api-key|api[_-]?key|token|secret|password)"?\s*[:=]\s*"?)(?!Bearer\b|Basic\b|\[REDACTED\])[^"\s,}]{4,}/gi,
  /(\/\/[^/\s:@]+:)[^@\s/]+(?=@)/g, // password inside a URL
];

const MASK = "[REDACTED]";

/** Replaces every known secret value and every secret-shaped string in `text`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length >= 4 && out.includes(s)) out = out.split(s).join(MASK);
    const escaped = JSON.stringify(s).slice(1, -1); // the value as it appears inside a JSON string
    if (escaped !== s && out.includes(escaped)) out = out.split(escaped).join(MASK);
  }
  for (const re of SECRET_PATTERNS) {
    out = out.replace(re, (match, prefix?: unknown) => (typeof prefix === "string" && match.startsWith(prefix) ? prefix + MASK : MASK));
  }
  return out;
}

export interface LoggerOptions {
  readonly level: Config["logging"]["level"];
  readonly format: Config["logging"]["format"];
  readonly secrets: readonly string[];
  /** Where lines go; stdout by default. Tests pass a capture stream. */
  readonly destination?: DestinationStream;
  readonly isTty?: boolean;
}

export function createLogger(opts: LoggerOptions): Logger {
  const pretty = opts.format === "pretty" || (opts.format === "auto" && (opts.isTty ?? false) && !opts.destination);
  const secrets = [...opts.secrets].sort((a, b) => b.length - a.length);
  const base = {
    level: opts.level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: { streamWrite: (line: string) => redact(line, secrets) },
    serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
  };
  if (pretty) {
    // pino-pretty as a synchronous stream so the redaction hook still sees every line.
    return pino(base, prettyStream());
  }
  return pino(base, opts.destination ?? pino.destination({ dest: 1, sync: false }));
}

function prettyStream(): DestinationStream {
  // Loaded lazily: only interactive runs pay for it.
  const build = createRequire(import.meta.url)("pino-pretty") as (o: object) => DestinationStream;
  return build({ colorize: true, translateTime: "HH:MM:ss.l", ignore: "pid,hostname", sync: true });
}
