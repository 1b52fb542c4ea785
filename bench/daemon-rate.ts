/**
 * The outbound-rate section of the daemon benchmark: the fake's flood control
 * ON (GCRA with Telegram's limits: 1/s per chat, 20/min per group, 30/s
 * global, 40 ms tolerance) and the daemon on its default rate limits.
 *   - overhead with default limits at 1 and 50 chats (what a user waits for
 *     when the limits, not the daemon, decide);
 *   - a burst to ONE chat: one reply long enough for K messages;
 *   - a burst to ONE group: the same in a supergroup (20/min);
 *   - a burst to SEVERAL chats: 20 chats at once, each answered in 5 messages
 *     (each chat's own rate, averaged; their first messages all want to go at once);
 *   - a burst to MANY chats: M chats at once, each answered in two messages.
 * For each burst: calls answered 200 over the span from the first reply message
 * to the last call, as a share of the limit, and the 429s the fake answered.
 * (Typing actions sent before the first reply exists are left out of the span:
 * until a reply is ready no limit holds anything back; the many-chats figure
 * from the very first call is reported beside it.) The one-chat and one-group
 * bursts count messages (their limits are message limits); the many-chats
 * burst counts every call, typing included (the global limit counts all).
 */
import type { RecordedCall } from "../test/fakes/telegram-api.js";
import { dmText, groupText } from "../test/fakes/telegram-updates.js";
import { type BenchDaemon, type Cleanup, scrape } from "./daemon-harness.js";
import { sleep } from "./daemon-load.js";
import { type Level, log, readyDaemon, runLevel, stopChecked } from "./daemon-sections.js";
import { startWorld, type World } from "./daemon-world.js";

/** Bot API methods the fake counts against the global limit (those our adapter uses). */
const CHAT_METHODS = new Set(["sendMessage", "editMessageText", "deleteMessage", "sendChatAction", "setMessageReaction"]);
/** The per-chat and per-group limits count messages; a chat action (typing) is paced on its own. */
const MESSAGE_METHODS = new Set([...CHAT_METHODS].filter((m) => m !== "sendChatAction"));
const GROUP_ID = -1001234567890;

export interface Burst {
  readonly label: string;
  readonly limit: string;
  /** Calls answered 200 in the burst. */
  readonly calls: number;
  readonly spanMs: number;
  /** Achieved rate in the limit's unit, and as a share of the limit. */
  readonly achieved: number;
  readonly share: number;
  readonly unit: "/s" | "/min";
  readonly floods: number;
  /** Most calls answered 200 in any 1-second window (the sustained rate once turns are out of the way). */
  readonly peak1s: number;
  /**
   * Many-chats burst only: the rate from the very first call (a typing action
   * sent while the first turns still run) to the last. The main figure starts at
   * the first reply, before which no limit is what holds anything back.
   */
  readonly fromFirstCall?: { readonly calls: number; readonly spanMs: number; readonly achieved: number; readonly share: number };
  /** The daemon's event-loop delay over the burst. */
  readonly loopMaxMs: number;
}

export interface RateFigures {
  readonly defaults: Level[];
  readonly bursts: Burst[];
  readonly total429: number;
  /** Per flood bucket kind: how many 429s, and how early their calls came. */
  readonly buckets: Readonly<Record<string, string>>;
  readonly leftovers: readonly string[];
}

export interface RateOptions {
  readonly pollTimeoutS: number;
  readonly thinkMs: readonly [number, number];
  readonly levelMs: number;
  readonly oneChatMessages: number;
  readonly groupMessages: number;
  readonly manyChats: number;
  /** The several-chats burst: this many chats, each answered in `severalChatsMessages` messages. */
  readonly severalChats: number;
  readonly severalChatsMessages: number;
  /** Also run the many-chats burst on a daemon with max_concurrent_turns raised to this (0: skip). */
  readonly diagnosticConcurrency: number;
}

export async function rateSection(o: RateOptions, cleanup: Cleanup): Promise<RateFigures> {
  const w = await startWorld(cleanup, { users: Math.max(60, o.manyChats + 2), flood: true });
  const d = await readyDaemon("rate", w, { pollTimeoutS: o.pollTimeoutS, rateLimits: null }, cleanup);
  const defaults = [
    await runLevel(d, w, "1 chat, default limits", { chats: 1, thinkMs: o.thinkMs, turns: 4 }),
    await runLevel(d, w, "50 chats, default limits", { chats: 50, thinkMs: o.thinkMs, durationMs: o.levelMs }),
  ];
  await sleep(3500); // typing calls still queued give up after 3 s; let every budget refill
  const [u0, u1] = w.users;
  if (!u0 || !u1) throw new Error("rate section needs at least two users");
  const bursts: Burst[] = [];
  const one = String(u0.id);
  bursts.push(
    await burst(
      d,
      w,
      { label: "burst to 1 chat", limit: "1/s per chat", perUnit: 1, unit: "/s", chats: [one], perChat: o.oneChatMessages, messagesOnly: true },
      () => void w.tg.pushUpdate(dmText(`long:${o.oneChatMessages}`, { from: u0 })),
    ),
  );
  await sleep(1500);
  bursts.push(
    await burst(
      d,
      w,
      {
        label: "burst to 1 group",
        limit: "20/min per group",
        perUnit: 20,
        unit: "/min",
        chats: [String(GROUP_ID)],
        perChat: o.groupMessages,
        messagesOnly: true,
      },
      () => void w.tg.pushUpdate(groupText(GROUP_ID, `long:${o.groupMessages}`, { from: u1 })),
    ),
  );
  await sleep(1500);
  bursts.push(await severalChatsBurst(d, w, o.severalChats, o.severalChatsMessages));
  await sleep(1500);
  bursts.push(await manyChatsBurst(d, w, o.manyChats, `burst to ${o.manyChats} chats`));
  const leftovers = await stopChecked(d, "rate");
  const figures = { defaults, bursts, total429: w.tg.flood429s, buckets: bucketCounts(w), leftovers };
  if (o.diagnosticConcurrency <= 0) return figures;
  // The same burst where turn concurrency can't be the limit: separates the scheduler from the runtime.
  const d2 = await readyDaemon(
    "rate-diag",
    w,
    { pollTimeoutS: o.pollTimeoutS, rateLimits: null, gateway: { max_concurrent_turns: o.diagnosticConcurrency } },
    cleanup,
  );
  await runLevel(d2, w, "warm-up (not reported)", { chats: 1, thinkMs: null, turns: 1 }); // lazy imports out of the burst
  await sleep(1500);
  const diag = await manyChatsBurst(d2, w, o.manyChats, `  same, max_concurrent_turns ${o.diagnosticConcurrency} (diagnostic)`);
  return { ...figures, bursts: [...bursts, diag], leftovers: [...leftovers, ...(await stopChecked(d2, "rate-diag"))] };
}

/** Every one of `n` chats asks at once for a reply in two messages. */
function manyChatsBurst(d: BenchDaemon, w: World, n: number, label: string): Promise<Burst> {
  const many = w.users.slice(2, 2 + n);
  return burst(d, w, { label, limit: "30/s global", perUnit: 30, unit: "/s", chats: many.map((u) => String(u.id)), perChat: 2, messagesOnly: false }, () =>
    many.forEach((u) => w.tg.pushUpdate(dmText("long:2", { from: u }))),
  );
}

/**
 * Every one of `n` chats asks at once for a reply in `k` messages: each chat's 1/s limit is what holds them back
 * (n/s in all, under the global limit), while their first messages all want to go at once.
 */
function severalChatsBurst(d: BenchDaemon, w: World, n: number, k: number): Promise<Burst> {
  const some = w.users.slice(2, 2 + n);
  const spec: BurstSpec = {
    label: `burst to ${n} chats × ${k}`,
    limit: "1/s per chat (mean of the chats)",
    perUnit: 1,
    unit: "/s",
    chats: some.map((u) => String(u.id)),
    perChat: k,
    messagesOnly: true,
    eachChat: true,
  };
  return burst(d, w, spec, () => some.forEach((u) => w.tg.pushUpdate(dmText(`long:${k}`, { from: u }))));
}

interface BurstSpec {
  readonly label: string;
  readonly limit: string;
  /** The limit in `unit`. */
  readonly perUnit: number;
  readonly unit: "/s" | "/min";
  readonly chats: readonly string[];
  /** Messages each chat must get. */
  readonly perChat: number;
  /** Count messages only (per-chat and per-group limits), or every call, typing included (the global limit). */
  readonly messagesOnly: boolean;
  /** The rate is each chat's own (first to last message), averaged over the chats, instead of all calls together. */
  readonly eachChat?: boolean;
}

/** Runs `send`, waits until every chat got its messages, and measures the calls to those chats. */
async function burst(d: BenchDaemon, w: World, spec: BurstSpec, send: () => void): Promise<Burst> {
  const { label, limit, perUnit, unit, chats, perChat } = spec;
  const from = w.tg.calls.length;
  const floodsBefore = w.tg.flood429s;
  await scrape(d);
  const want = new Set(chats);
  send();
  const deadline = performance.now() + 180_000;
  const counted = spec.messagesOnly ? MESSAGE_METHODS : CHAT_METHODS;
  const mine = (): RecordedCall[] => w.tg.calls.slice(from).filter((c) => c.chatId !== undefined && want.has(c.chatId) && counted.has(c.method));
  while (!chats.every((id) => mine().filter((c) => c.chatId === id && c.method === "sendMessage" && c.status === 200).length >= perChat)) {
    if (performance.now() > deadline) throw new Error(`${label}: not every chat got ${perChat} message(s) within 180 s`);
    await sleep(100);
  }
  const all = mine().filter((c) => c.status === 200);
  const firstReply = all.find((c) => c.method === "sendMessage")?.at ?? 0;
  const ok = all.filter((c) => c.at >= firstReply);
  const per = unit === "/s" ? 1000 : 60_000;
  const rate = (calls: readonly RecordedCall[]) => {
    const spanMs = (calls.at(-1)?.at ?? 0) - (calls[0]?.at ?? 0);
    const achieved = spanMs > 0 ? ((calls.length - 1) / spanMs) * per : Number.NaN;
    return { calls: calls.length, spanMs, achieved, share: achieved / perUnit };
  };
  const { spanMs, achieved: together } = rate(ok);
  const achieved = spec.eachChat ? mean(chats.map((id) => rate(ok.filter((c) => c.chatId === id)).achieved)) : together;
  const share = achieved / perUnit;
  const loop = await scrape(d);
  log(`${label.trim()}: ${ok.length} calls in ${(spanMs / 1000).toFixed(1)} s = ${achieved.toFixed(2)}${unit}`);
  return {
    label,
    limit,
    calls: ok.length,
    spanMs,
    achieved,
    share,
    unit,
    floods: w.tg.flood429s - floodsBefore,
    peak1s: peakWindow(
      ok.map((c) => c.at),
      1000,
    ),
    loopMaxMs: loop.loopMaxMs,
    ...(all.length > ok.length ? { fromFirstCall: rate(all) } : {}),
  };
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The most timestamps within any window of `ms`. */
function peakWindow(times: readonly number[], ms: number): number {
  let best = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while ((times[j] ?? 0) - (times[i] ?? 0) >= ms) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

/** Per flood bucket kind: the 429s and how early their calls came (min–max ms): a few ms is jitter, much more a stall. */
function bucketCounts(w: World): Record<string, string> {
  const by = new Map<string, number[]>();
  for (const f of w.tg.floodLog) {
    const kind = f.bucket.split(":")[0] ?? f.bucket;
    by.set(kind, [...(by.get(kind) ?? []), f.earlyMs]);
  }
  return Object.fromEntries(
    [...by].map(([kind, early]) => [kind, `${early.length}, ${Math.min(...early).toFixed(0)}–${Math.max(...early).toFixed(0)} ms early`]),
  );
}
