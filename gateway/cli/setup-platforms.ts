/**
 * The wizard's platform steps: a bot token per platform, checked live with
 * the platform before it is saved, then the owner's user id as the first
 * allowlisted user (for Discord, the application's owner is offered).
 */
import type { Config } from "../../config/index.js";
import { keepAfterFailure, type SetupFlags, type StepContext } from "./setup-args.js";
import { type BotIdentity, type Checked, discordApplicationOwner, discordCurrentUser, slackAuthTest, telegramGetMe } from "./setup-platform-api.js";
import { isInlineSecret } from "./setup-provider.js";

type Platform = "telegram" | "discord" | "slack";

interface PlatformSpec {
  readonly name: Platform;
  readonly label: string;
  readonly tokenFlag: keyof SetupFlags;
  readonly tokenQuestion: string;
  /** The .env variable the token goes to, and its key in config.yaml (moved out when found there). */
  readonly tokenEnv: string;
  readonly tokenKey: string;
  readonly userFlag: keyof SetupFlags;
  readonly userWhat: string;
  check(config: Config, token: string): Promise<Checked<BotIdentity>>;
  /** A user id to offer as the first allowlisted user. */
  owner?(config: Config, token: string): Promise<string | null>;
}

const PLATFORMS: readonly PlatformSpec[] = [
  {
    name: "telegram",
    label: "Telegram",
    tokenFlag: "telegram-token",
    tokenQuestion: "Telegram bot token (from @BotFather)",
    tokenEnv: "TELEGRAM_BOT_TOKEN",
    tokenKey: "token",
    userFlag: "telegram-user",
    userWhat: "Telegram user id (a number; @userinfobot tells it)",
    check: (c, t) => telegramGetMe(c.gateway.platforms.telegram.api_root, t),
  },
  {
    name: "discord",
    label: "Discord",
    tokenFlag: "discord-token",
    tokenQuestion: "Discord bot token (developer portal → your application → Bot)",
    tokenEnv: "DISCORD_BOT_TOKEN",
    tokenKey: "token",
    userFlag: "discord-user",
    userWhat: "Discord user id",
    check: (c, t) => discordCurrentUser(c.gateway.platforms.discord.api_url, t),
    owner: (c, t) => discordApplicationOwner(c.gateway.platforms.discord.api_url, t),
  },
  {
    name: "slack",
    label: "Slack",
    tokenFlag: "slack-bot-token",
    tokenQuestion: "Slack bot token (xoxb-…)",
    tokenEnv: "SLACK_BOT_TOKEN",
    tokenKey: "bot_token",
    userFlag: "slack-user",
    userWhat: "Slack member id (profile → ⋮ → Copy member ID)",
    check: (c, t) => slackAuthTest(c.gateway.platforms.slack.api_url, t),
  },
];

/** False when a token failed its check and was not kept. */
export async function platformSteps(ctx: StepContext): Promise<boolean> {
  for (const spec of PLATFORMS) {
    const token = await tokenStep(spec, ctx);
    if (token === false) return false;
    if (spec.name === "slack" && token !== null && !(await slackAppToken(ctx))) return false;
    await allowlistStep(spec, ctx, token);
  }
  return true;
}

/** The new token (saved), null when none was given (the current one stays), false when it failed and was not kept. */
async function tokenStep(spec: PlatformSpec, ctx: StepContext): Promise<string | null | false> {
  const { answers, io } = ctx;
  const has = Boolean(currentToken(spec, ctx.current));
  let flag = ctx.flags[spec.tokenFlag] as string | undefined;
  for (;;) {
    const token = await answers.text(flag, `${spec.tokenQuestion} (Enter ${has ? "keeps the current one" : "skips it"})`, { secret: true });
    if (!token) return null;
    const checked = await spec.check(ctx.current, token);
    if (checked.ok) io.out(`✓ ${spec.label}: the token is ${checked.value.label}'s (id ${checked.value.id})`);
    else io.err(`✗ ${spec.label}: ${checked.error}`);
    if (checked.ok || (await keepAfterFailure(ctx, `this ${spec.label} token`))) {
      saveToken(spec, ctx, token);
      return token;
    }
    if (!answers.interactive) return false;
    flag = undefined; // ask again
  }
}

function saveToken(spec: PlatformSpec, ctx: StepContext, token: string): void {
  const block = ["gateway", "platforms", spec.name];
  ctx.files.setEnv(spec.tokenEnv, token);
  if (isInlineSecret(ctx.files.getYaml([...block, spec.tokenKey]))) ctx.files.deleteYaml([...block, spec.tokenKey]);
  if (ctx.files.getYaml([...block, "enabled"]) === false) ctx.files.setYaml([...block, "enabled"], true);
}

/** Socket Mode's app-level token: Slack checks it only when a socket is opened, so its form is checked here. */
async function slackAppToken(ctx: StepContext): Promise<boolean> {
  const has = Boolean(ctx.current.gateway.platforms.slack.app_token);
  const token = await ctx.answers.text(
    ctx.flags["slack-app-token"],
    `Slack app-level token for Socket Mode (xapp-…; Enter ${has ? "keeps the current one" : "skips it"})`,
    { secret: true },
  );
  if (!token) return true;
  if (!token.startsWith("xapp-")) {
    ctx.io.err("✗ Slack: an app-level token starts with xapp- (Basic Information → App-Level Tokens, scope connections:write)");
    if (!(await keepAfterFailure(ctx, "this app-level token"))) return false;
  }
  ctx.files.setEnv("SLACK_APP_TOKEN", token);
  if (isInlineSecret(ctx.files.getYaml(["gateway", "platforms", "slack", "app_token"]))) ctx.files.deleteYaml(["gateway", "platforms", "slack", "app_token"]);
  return true;
}

/**
 * The owner's id as the first allowlisted user: asked when a token was just
 * given (or the flag is), offered when the platform says who owns the bot and
 * nobody is allowlisted yet. Without it, new users get a pairing code.
 */
async function allowlistStep(spec: PlatformSpec, ctx: StepContext, token: string | null): Promise<void> {
  const flag = ctx.flags[spec.userFlag] as string | undefined;
  if (token === null && flag === undefined) return;
  const path = ["gateway", "platforms", spec.name, "allowed_users"];
  const nobodyYet = ctx.current.gateway.platforms[spec.name].allowed_users.length === 0;
  const offered = token !== null && spec.owner && nobodyYet ? await spec.owner(ctx.current, token) : null;
  const hint = offered ? "Enter takes the application's owner" : "Enter: nobody; new users get a pairing code";
  const id = await ctx.answers.text(flag, `Your ${spec.userWhat}, allowlisted (${hint})`, offered ? { fallback: offered } : {});
  if (!id) return;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
    ctx.io.err(`✗ ${spec.label}: "${id}" is not a user id; nobody was allowlisted`);
    return;
  }
  ctx.files.addToList(path, id);
  ctx.io.out(`✓ ${spec.label}: user ${id} is allowlisted`);
}

function currentToken(spec: PlatformSpec, c: Config): string | undefined {
  const p = c.gateway.platforms;
  return spec.name === "telegram" ? p.telegram.token : spec.name === "discord" ? p.discord.token : p.slack.bot_token;
}
