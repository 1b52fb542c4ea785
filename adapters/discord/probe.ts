/**
 * What `doctor` asks Discord directly, with the configured token: who the
 * bot is (a 401 means the token is wrong or revoked), and whether the
 * application has the Message Content intent enabled (without it the gateway
 * closes the connection with 4014). Two REST calls, no gateway connection.
 */
import type { DiscordConfig } from "../../config/schema.js";

/** Application flags: the Message Content intent, for verified bots and for bots in fewer than 100 servers. */
const MESSAGE_CONTENT = 1 << 18;
const MESSAGE_CONTENT_LIMITED = 1 << 19;

export type DiscordProbe =
  | { readonly kind: "ok"; readonly identity: string }
  | { readonly kind: "token_invalid"; readonly detail: string }
  | { readonly kind: "intent_missing"; readonly identity: string }
  | { readonly kind: "unreachable"; readonly detail: string };

export async function probeDiscord(config: DiscordConfig, signal: AbortSignal): Promise<DiscordProbe> {
  const api = `${config.api_url.replace(/\/+$/, "")}/v10`;
  const headers = { authorization: `Bot ${config.token ?? ""}` };
  try {
    const me = await fetch(`${api}/users/@me`, { headers, signal });
    if (me.status === 401) return { kind: "token_invalid", detail: "Discord answered 401 Unauthorized" };
    if (!me.ok) return { kind: "unreachable", detail: `GET /users/@me answered HTTP ${me.status}` };
    const user = (await me.json()) as { id: string; username: string };
    const identity = `${user.username}#${user.id}`;
    const app = await fetch(`${api}/applications/@me`, { headers, signal });
    if (!app.ok) return { kind: "unreachable", detail: `GET /applications/@me answered HTTP ${app.status}` };
    const flags = Number(((await app.json()) as { flags?: number }).flags ?? 0);
    return flags & (MESSAGE_CONTENT | MESSAGE_CONTENT_LIMITED) ? { kind: "ok", identity } : { kind: "intent_missing", identity };
  } catch (err) {
    return { kind: "unreachable", detail: err instanceof Error ? err.message : String(err) };
  }
}
