/** `hermes-gateway setup`: its flags (one per question), its help, and what every step is given. */
import type { Config } from "../../config/index.js";
import type { CliIo } from "./context.js";
import type { SetupFiles } from "./setup-files.js";
import type { Answers } from "./setup-prompt.js";

export const SETUP_USAGE = `Usage: hermes-gateway setup [options]

A first-run wizard in the terminal. It asks for each value below (Enter keeps what is in [brackets]), tests the
model provider with one real request, checks each platform token with the platform itself (Telegram getMe,
Discord's current user, Slack auth.test), offers your user id as the first allowlisted user, then writes
$HERMES_HOME/config.yaml and $HERMES_HOME/.env (mode 0600; secrets only in .env) and shows what doctor says.
Running it again edits both files in place: comments and every other key stay. Nothing is written when a step fails.

Model provider:
  --provider NAME          openrouter, openai, anthropic, or custom (a local or other OpenAI-compatible server)
  --model NAME             the model, e.g. anthropic/claude-sonnet-4.5
  --api-key KEY            the provider's key (custom: only if the server wants one)
  --base-url URL           custom: the server's OpenAI-compatible URL, e.g. http://127.0.0.1:11434/v1
Platforms (a token is saved only once the platform has accepted it):
  --telegram-token TOKEN   the bot token from @BotFather
  --telegram-user ID       your Telegram user id, allowlisted
  --discord-token TOKEN    the bot token from the Discord developer portal
  --discord-user ID        your Discord user id, allowlisted (default: the application's owner)
  --slack-bot-token TOKEN  the bot token (xoxb-…)
  --slack-app-token TOKEN  the app-level token for Socket Mode (xapp-…)
  --slack-user ID          your Slack member id, allowlisted
Running:
  --non-interactive        ask nothing: use the flags and keep everything else as it is (for scripts)
  --keep-unverified        save values whose live check failed (otherwise: asked; non-interactive: nothing is written)
  --config PATH            the config file to edit (default: $HERMES_HOME/config.yaml)
  -h, --help               show this help

Exit codes: 0 written (or nothing to change), 1 a check failed or the input ended, 64 bad usage,
78 the existing configuration is invalid (fix it first: setup edits it, it does not replace it).`;

export interface SetupFlags {
  provider?: string;
  model?: string;
  "api-key"?: string;
  "base-url"?: string;
  "telegram-token"?: string;
  "telegram-user"?: string;
  "discord-token"?: string;
  "discord-user"?: string;
  "slack-bot-token"?: string;
  "slack-app-token"?: string;
  "slack-user"?: string;
  "non-interactive"?: boolean;
  "keep-unverified"?: boolean;
  config?: string;
}

const text = { type: "string" } as const;
const flag = { type: "boolean" } as const;

export const SETUP_OPTIONS = {
  provider: text,
  model: text,
  "api-key": text,
  "base-url": text,
  "telegram-token": text,
  "telegram-user": text,
  "discord-token": text,
  "discord-user": text,
  "slack-bot-token": text,
  "slack-app-token": text,
  "slack-user": text,
  "non-interactive": flag,
  "keep-unverified": flag,
  config: text,
} as const;

/** What each step of the wizard works with. */
export interface StepContext {
  readonly flags: SetupFlags;
  readonly files: SetupFiles;
  /** The configuration as it is before this run (files and environment). */
  readonly current: Config;
  readonly answers: Answers;
  readonly io: CliIo;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * A value's live check failed: with --keep-unverified it is saved anyway;
 * interactively the person decides; otherwise the run fails.
 */
export async function keepAfterFailure(ctx: StepContext, what: string): Promise<boolean> {
  if (ctx.flags["keep-unverified"]) {
    ctx.io.err(`  saving ${what} anyway (--keep-unverified)`);
    return true;
  }
  return ctx.answers.yes(`  Save ${what} anyway?`, false);
}
