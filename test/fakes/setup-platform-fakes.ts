/**
 * The two platform endpoints `hermes-gateway setup` calls to check tokens,
 * answered as Discord and Slack answer them, on 127.0.0.1 port 0:
 *
 *   Discord REST (`api_url` = server.url + "/api"; discord.js sends `${api}/v10/...`)
 *     GET /api/v10/users/@me                 Authorization: Bot <token> → the bot user, else 401 {message, code: 0}
 *     GET /api/v10/oauth2/applications/@me   Authorization: Bot <token> → the application with its owner
 *   Slack Web API (`api_url` = server.url + "/api/")
 *     POST /api/auth.test                    Authorization: Bearer <xoxb> → {ok: true, team, user, user_id, bot_id, …},
 *                                            else 200 {ok: false, error: "invalid_auth"} (Slack answers errors with 200)
 *
 * Every request is recorded with its method, path and authorization header.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server.js";

export interface RecordedPlatformCall {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
}

interface FakeBase {
  /** http://127.0.0.1:PORT/api (Discord) or http://127.0.0.1:PORT/api/ (Slack): the configured api_url. */
  readonly apiUrl: string;
  readonly calls: readonly RecordedPlatformCall[];
  close(): Promise<void>;
}

export interface DiscordIdentityOptions {
  readonly token: string;
  readonly bot?: { readonly id: string; readonly username: string };
  /** The application's owner; with `team`, a team application whose owner is this user. */
  readonly ownerId?: string;
  readonly team?: boolean;
}

export async function startFakeDiscordIdentity(opts: DiscordIdentityOptions): Promise<FakeBase> {
  const bot = opts.bot ?? { id: "1100000000000000001", username: "hermes" };
  return serve("/api", (req, res) => {
    if (req.headers.authorization !== `Bot ${opts.token}`) return json(res, 401, { message: "401: Unauthorized", code: 0 });
    if (req.method === "GET" && req.url === "/api/v10/users/@me") {
      return json(res, 200, { id: bot.id, username: bot.username, discriminator: "0", global_name: null, avatar: null, bot: true, flags: 0 });
    }
    if (req.method === "GET" && req.url === "/api/v10/oauth2/applications/@me") {
      const owner = { id: opts.ownerId ?? "1200000000000000002", username: "owner", discriminator: "0" };
      const team = opts.team ? { id: "1300000000000000003", name: "team", owner_user_id: owner.id, members: [] } : null;
      return json(res, 200, {
        id: "1400000000000000004",
        name: "Hermes",
        bot_public: false,
        bot_require_code_grant: false,
        owner: team ? { id: team.id, username: `team${team.id}` } : owner,
        team,
        flags: 0,
      });
    }
    return json(res, 404, { message: "404: Not Found", code: 0 });
  });
}

export interface SlackAuthOptions {
  readonly botToken: string;
  readonly team?: string;
  readonly botUser?: { readonly id: string; readonly name: string };
}

export async function startFakeSlackAuth(opts: SlackAuthOptions): Promise<FakeBase> {
  const user = opts.botUser ?? { id: "U0BOT", name: "hermes" };
  return serve("/api/", (req, res) => {
    if (req.method !== "POST" || req.url !== "/api/auth.test") return json(res, 404, { ok: false, error: "unknown_method" });
    if (req.headers.authorization !== `Bearer ${opts.botToken}`) return json(res, 200, { ok: false, error: "invalid_auth" });
    const team = opts.team ?? "Acme";
    return json(res, 200, {
      ok: true,
      url: "https://acme.slack.com/",
      team,
      user: user.name,
      team_id: "T0ACME",
      user_id: user.id,
      bot_id: "B0BOT",
      is_enterprise_install: false,
    });
  });
}

async function serve(apiPath: string, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<FakeBase> {
  const calls: RecordedPlatformCall[] = [];
  const server = await listenOnLoopback((req, res) => {
    calls.push({ method: req.method ?? "", path: req.url ?? "", authorization: req.headers.authorization });
    req.resume(); // bodies (Slack's form) are not needed
    req.on("end", () => handler(req, res));
  });
  return {
    apiUrl: `${server.url}${apiPath}`,
    calls,
    close: () => server.close(),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
