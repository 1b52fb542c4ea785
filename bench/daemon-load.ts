/**
 * Closed-loop chat load through the fake Bot API: each of C chats (one
 * allowlisted user's DM each) sends a message, waits until the fake records
 * the daemon's sendMessage reply to it, optionally "thinks" for a while, then
 * sends the next. The overhead of a turn is push-into-the-fake → the reply's
 * sendMessage arriving at the fake, split into where the time went:
 *   ingress   push → the daemon's next getUpdates confirms the update (long-poll
 *             delivery + durable commit of its batch);
 *   to LLM    push → the model request for it reaches the fake LLM;
 *   reply     push → the sendMessage carrying the answer reaches the fake;
 *   model     the model's own time: the request arriving at the fake LLM → its
 *             answer written out whole (≈ 0 for the instant model).
 * Each time is when the request arrived at the fake, before it read the body:
 * reading it is the remote side's work, and the bench process that runs the
 * fakes may be slow to get to it on a busy machine.
 */
import { dmText, type UserShape } from "../test/fakes/telegram-updates.js";
import { trimRecords, type World } from "./daemon-world.js";

export interface LoadOptions {
  readonly chats: number;
  /** Stop after this many turns in all (whichever of turns/durationMs comes first). */
  readonly turns?: number;
  readonly durationMs?: number;
  /** Pause after each reply before the chat's next message: uniform in [min, max] ms, deterministic per chat. */
  readonly thinkMs?: readonly [number, number];
  /** Unique per run, so a reply can only match the message it answers. */
  readonly tag: string;
  /** A reply not seen within this is a failure of the run. */
  readonly replyTimeoutMs?: number;
}

export interface TurnTiming {
  /** performance.now() when the update was pushed. */
  readonly pushedAt: number;
  readonly ingressMs: number;
  readonly llmMs: number;
  readonly replyMs: number;
  /** The model's own time (NaN when the fake LLM did not note it). */
  readonly modelMs: number;
}

export interface LoadResult {
  readonly turns: TurnTiming[];
  /** performance.now() at the start of the load. */
  readonly startedAt: number;
  readonly wallMs: number;
}

export async function closedLoop(w: World, opts: LoadOptions): Promise<LoadResult> {
  if (opts.chats > w.users.length) throw new Error(`${opts.chats} chats but only ${w.users.length} allowlisted users`);
  const maxTurns = opts.turns ?? Number.POSITIVE_INFINITY;
  const deadline = performance.now() + (opts.durationMs ?? Number.POSITIVE_INFINITY);
  const turns: TurnTiming[] = [];
  let issued = 0;
  const t0 = performance.now();
  const chat = async (user: UserShape, index: number): Promise<void> => {
    const rand = lcg(index + 1);
    // Spread the chats' first messages over one think time, as real conversations are.
    if (opts.thinkMs) await sleep(rand() * opts.thinkMs[1]);
    for (let seq = 0; issued < maxTurns && performance.now() < deadline; seq++) {
      issued++;
      turns.push(await oneTurn(w, user, `tok${opts.tag}-${user.id}-${seq}`, opts.replyTimeoutMs ?? 60_000));
      if (w.tg.calls.length > 4000) trimRecords(w);
      if (opts.thinkMs) await sleep(opts.thinkMs[0] + rand() * (opts.thinkMs[1] - opts.thinkMs[0]));
    }
  };
  await Promise.all(w.users.slice(0, opts.chats).map(chat));
  return { turns, startedAt: t0, wallMs: performance.now() - t0 };
}

/** Pushes one DM and resolves with its timings once the fake records the sendMessage (or preview edit) carrying its whole token. */
export async function oneTurn(w: World, user: UserShape, token: string, timeoutMs: number): Promise<TurnTiming> {
  let repliedAt = 0;
  let confirmedAt = 0;
  let updateId = Number.POSITIVE_INFINITY;
  const chatId = String(user.id);
  const mine = new RegExp(`${token}(?!\\d)`); // "…-1" must not match the reply to "…-10"
  const reply = w.tg.waitFor((c) => {
    // A streamed reply may show its full text first in an edit of its preview.
    if ((c.method !== "sendMessage" && c.method !== "editMessageText") || c.chatId !== chatId || !mine.test(String(c.payload.text ?? ""))) return false;
    repliedAt ||= c.arrivedAt;
    return true;
  }, timeoutMs);
  const confirmed = w.tg.waitFor((c) => {
    if (c.method !== "getUpdates" || Number(c.payload.offset ?? 0) <= updateId) return false;
    confirmedAt ||= c.arrivedAt;
    return true;
  }, timeoutMs);
  const pushedAt = performance.now();
  updateId = w.tg.pushUpdate(dmText(token, { from: user }));
  try {
    await Promise.all([reply, confirmed]);
  } catch (err) {
    const last = w.tg.calls.slice(-4).map((c) => `${c.method} ${c.status} ${JSON.stringify(c.payload).slice(0, 120)}`);
    throw new Error(`no reply to "${token}" within ${timeoutMs} ms; the fake's last calls: ${last.join(" | ")}`, { cause: err });
  }
  const llmAt = w.llmMarks.get(token) ?? Number.NaN;
  const servedAt = w.servedMarks.get(token) ?? Number.NaN;
  w.llmMarks.delete(token);
  w.servedMarks.delete(token);
  return { pushedAt, ingressMs: confirmedAt - pushedAt, llmMs: llmAt - pushedAt, replyMs: repliedAt - pushedAt, modelMs: servedAt - llmAt };
}

export interface Percentiles {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export function percentiles(xs: readonly number[]): Percentiles {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN;
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? Number.NaN };
}

export function median(xs: readonly number[]): number {
  return percentiles(xs).p50;
}

/** A small deterministic generator in [0, 1), so runs with and without MCP see the same arrival pattern. */
function lcg(seed: number): () => number {
  let s = (seed * 2654435761) >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
