/**
 * The daemon's surroundings for the daemon benchmarks: the fake Telegram Bot
 * API, an instant fake LLM, the allowlisted users, and the config.yaml + env
 * that point the built daemon at them.
 */
import { stringify } from "yaml";
import { type FakeLlmServer, type FakeRequest, type FakeTurn, startFakeLlmServer } from "../test/fakes/llm-server.js";
import { FakeTelegramApi } from "../test/fakes/telegram-api.js";
import type { UserShape } from "../test/fakes/telegram-updates.js";
import type { Cleanup } from "./daemon-harness.js";

export interface World {
  readonly tg: FakeTelegramApi;
  readonly llm: FakeLlmServer;
  /** Allowlisted users; each one's DM is a separate chat (chat id = user id). */
  readonly users: readonly UserShape[];
  /** performance.now() when the request for each load token arrived at the fake LLM. */
  readonly llmMarks: Map<string, number>;
  /** performance.now() when the fake LLM had written its whole answer for each load token: the model's own time ends. */
  readonly servedMarks: Map<string, number>;
}

export interface WorldOptions {
  readonly users: number;
  /** Enforce Telegram's flood limits in the fake (per chat 1/s, per group 20/min, global 30/s). */
  readonly flood: boolean;
}

export const FIRST_USER_ID = 5001;

export async function startWorld(cleanup: Cleanup, opts: WorldOptions): Promise<World> {
  const tg = new FakeTelegramApi(opts.flood ? { flood: {} } : {});
  await tg.start();
  cleanup.add("close the fake Telegram API", () => tg.close());
  const servedMarks = new Map<string, number>();
  const llm = await startFakeLlmServer({ onServed: (req) => markToken(servedMarks, req, performance.now()) });
  cleanup.add("close the fake LLM", () => llm.close());
  const llmMarks = new Map<string, number>();
  llm.respondWith(instantModel(llmMarks));
  const users = Array.from({ length: opts.users }, (_, i): UserShape => ({ id: FIRST_USER_ID + i, is_bot: false, first_name: `U${i}` }));
  return { tg, llm, users, llmMarks, servedMarks };
}

/** Notes `at` against the load token of the request, if it carries one. */
function markToken(marks: Map<string, number>, req: FakeRequest, at: number): void {
  const token = TOKEN.exec(lastUserText(req))?.[0];
  if (token) marks.set(token, at);
}

/** Load tokens look like `tok<tag>-<user>-<seq>`. */
export const TOKEN = /tok[A-Za-z0-9]+-\d+-\d+/;
/** `long:<K>` in a message asks for a reply of K Telegram-sized chunks (for the rate tests). */
const LONG = /long:(\d+)/;
const CHUNK_TEXT = "lorem ipsum dolor sit amet ".repeat(140).trim();

/**
 * The instant model: answers every request at once, echoing the user's text
 * so a reply can be matched to its message, and notes when each load token's
 * request arrived.
 */
export function instantModel(marks: Map<string, number>): (req: FakeRequest) => FakeTurn {
  return (req) => {
    const text = lastUserText(req);
    markToken(marks, req, req.receivedAt);
    const long = LONG.exec(text);
    // 200-character frames: a real model spreads a long answer over seconds; thousands of 12-character frames
    // arriving at once would measure SSE parsing in both processes, not the outbound scheduler these replies test.
    if (long) return { text: Array.from({ length: Number(long[1]) }, () => CHUNK_TEXT).join("\n\n"), chunkChars: 200 };
    return { text: `re: ${text}` };
  };
}

export function lastUserText(req: FakeRequest): string {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const user = [...msgs].reverse().find((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

/**
 * Both fakes keep a record of every call and request; over 10,000 turns that
 * is hundreds of MB in this process and makes each lookup O(history). The
 * load phases don't need the history, so it is dropped between batches.
 */
export function trimRecords(w: World, keep = 0): void {
  if (w.tg.calls.length > keep) w.tg.calls.splice(0, w.tg.calls.length - keep);
  const reqs = w.llm.requests as FakeRequest[];
  if (reqs.length > keep) reqs.splice(0, reqs.length - keep);
}

export interface RateLimitsInput {
  readonly per_chat_per_s: number;
  readonly per_group_per_min: number;
  readonly global_per_s: number;
}

/** Limits far above any rate the load reaches, so the scheduler's pacing is not what is measured. */
export const UNLIMITED: RateLimitsInput = { per_chat_per_s: 10_000, per_group_per_min: 1_000_000, global_per_s: 100_000 };

export interface ConfigOptions {
  readonly pollTimeoutS: number;
  /** null: Telegram's defaults (1/s per chat, 20/min per group, 30/s global). */
  readonly rateLimits: RateLimitsInput | null;
  readonly mcpServers?: Record<string, unknown>;
  readonly mcp?: Record<string, unknown>;
  /** More `gateway:` keys (e.g. max_concurrent_turns). */
  readonly gateway?: Record<string, unknown>;
}

export function configYaml(w: World, opts: ConfigOptions): string {
  const telegram: Record<string, unknown> = { poll_timeout_s: opts.pollTimeoutS };
  if (opts.rateLimits) telegram.rate_limits = opts.rateLimits;
  const config: Record<string, unknown> = {
    model: { provider: "custom", base_url: w.llm.openaiBaseUrl, model: "fake-model", request_timeout_s: 30 },
    gateway: { drain_timeout_s: 2, ...opts.gateway, platforms: { telegram } },
    ...(opts.mcpServers ? { mcp_servers: opts.mcpServers } : {}),
    ...(opts.mcp ? { mcp: opts.mcp } : {}),
  };
  return stringify(config);
}

export function daemonEnv(w: World): Record<string, string> {
  return {
    TELEGRAM_BOT_TOKEN: w.tg.token,
    TELEGRAM_API_ROOT: w.tg.apiRoot,
    TELEGRAM_ALLOWED_USERS: w.users.map((u) => u.id).join(","),
  };
}
