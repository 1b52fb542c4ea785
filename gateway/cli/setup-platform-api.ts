/**
 * One live call per platform to check a token before it is saved: Telegram's
 * getMe, Discord's current user (and its application's owner, offered as the
 * first allowlisted user), Slack's auth.test. Each goes to the configured API
 * address (`api_root` / `api_url`), so a proxy or a test server works too.
 * Messages never contain the token (Telegram's is part of its URL), and what
 * the platform sent (names, error descriptions) is made safe to print.
 */

import { linkedSignal } from "../../config/linked-signal.js";
import { terminalSafe } from "../terminal-text.js";

const TIMEOUT_MS = 15_000;

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export interface BotIdentity {
  /** The bot's own user id on the platform. */
  readonly id: string;
  /** How to show it, e.g. "@hermes_bot". */
  readonly label: string;
}

export async function telegramGetMe(apiRoot: string, token: string, signal?: AbortSignal): Promise<Checked<BotIdentity>> {
  const base = apiRoot.replace(/\/+$/, "");
  const r = await getJson(`${base}/bot${token}/getMe`, { method: "POST" }, base, signal);
  if (!r.ok) return r;
  const body = r.value.body as { ok?: boolean; description?: string; result?: { id?: number; username?: string } } | null;
  if (body?.ok && body.result?.id !== undefined)
    return { ok: true, value: { id: String(body.result.id), label: terminalSafe(`@${body.result.username ?? body.result.id}`) } };
  return { ok: false, error: terminalSafe(`Telegram refused the token: ${body?.description ?? `HTTP ${r.value.status}`}`) };
}

/** GET /users/@me with the bot token. */
export async function discordCurrentUser(apiUrl: string, token: string, signal?: AbortSignal): Promise<Checked<BotIdentity>> {
  const r = await getJson(`${discordBase(apiUrl)}/users/@me`, { headers: { authorization: `Bot ${token}` } }, apiUrl, signal);
  if (!r.ok) return r;
  const body = r.value.body as { id?: string; username?: string; message?: string } | null;
  if (r.value.status === 200 && body?.id) return { ok: true, value: { id: terminalSafe(body.id), label: terminalSafe(body.username ?? body.id) } };
  return { ok: false, error: terminalSafe(`Discord refused the token: ${body?.message ?? `HTTP ${r.value.status}`}`) };
}

/** The user who owns the bot's application (a team's owner for a team application); null when Discord does not say. */
export async function discordApplicationOwner(apiUrl: string, token: string, signal?: AbortSignal): Promise<string | null> {
  const r = await getJson(`${discordBase(apiUrl)}/oauth2/applications/@me`, { headers: { authorization: `Bot ${token}` } }, apiUrl, signal);
  if (!r.ok || r.value.status !== 200) return null;
  const app = r.value.body as { owner?: { id?: string }; team?: { owner_user_id?: string } | null } | null;
  const owner = app?.team?.owner_user_id ?? app?.owner?.id;
  return typeof owner === "string" && /^\d{1,25}$/.test(owner) ? owner : null; // a snowflake, or nothing worth offering
}

/** POST auth.test with the bot token. */
export async function slackAuthTest(apiUrl: string, token: string, signal?: AbortSignal): Promise<Checked<BotIdentity & { readonly team: string }>> {
  const url = new URL("auth.test", apiUrl.endsWith("/") ? apiUrl : `${apiUrl}/`).toString();
  const r = await getJson(
    url,
    { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" } },
    apiUrl,
    signal,
  );
  if (!r.ok) return r;
  const body = r.value.body as { ok?: boolean; error?: string; user_id?: string; user?: string; team?: string } | null;
  if (body?.ok && body.user_id)
    return { ok: true, value: { id: terminalSafe(body.user_id), label: terminalSafe(`@${body.user ?? body.user_id}`), team: terminalSafe(body.team ?? "") } };
  return { ok: false, error: terminalSafe(`Slack refused the token: ${body?.error ?? `HTTP ${r.value.status}`}`) };
}

/** discord.js sends REST calls to `${api}/v10/...`; so do we. */
function discordBase(apiUrl: string): string {
  return `${apiUrl.replace(/\/+$/, "")}/v10`;
}

/** Any HTTP answer with its JSON body (null when not JSON); an unreachable server is an error naming `shown`, never `url`. */
async function getJson(url: string, init: RequestInit, shown: string, signal?: AbortSignal): Promise<Checked<{ status: number; body: unknown }>> {
  const call = linkedSignal(signal ? [signal] : [], TIMEOUT_MS);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { ...init, signal: call.signal });
    text = await res.text().catch(() => "");
  } catch (err) {
    const why = (call.signal.reason as Error | undefined)?.name === "TimeoutError" ? `no answer within ${TIMEOUT_MS / 1000} s` : causeOf(err);
    return { ok: false, error: `could not reach ${shown}: ${why}` };
  } finally {
    call.dispose();
  }
  try {
    return { ok: true, value: { status: res.status, body: JSON.parse(text) as unknown } };
  } catch {
    return { ok: true, value: { status: res.status, body: null } };
  }
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}
