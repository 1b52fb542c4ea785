/**
 * A burst of chats against the whole daemon, SIGKILLed at random moments and
 * restarted: the built CLI in a child process, the real grammY
 * client inside it against the fake Telegram Bot API, the real agent loop
 * against the fake LLM server. Every chat sends its messages one after
 * another at random intervals while the daemon is killed and restarted;
 * the updates that arrive while it is down wait in the fake Bot API, as they
 * would at Telegram.
 *
 * The model answers every request with the markers of the user messages it
 * has not answered yet (those after the last assistant message in the
 * request), "re c03m1 c03m2 end", streamed over 0.3–0.8 s; a reply that takes
 * longer than half a second is previewed and edited. So what the chats show
 * tells, for each message, whether a reply answered it, how often and in
 * which order — whatever the busy mode merged, interrupted or replayed. A
 * reply cut off mid-way (a preview a crash left) lacks the closing "end".
 *
 * `burstSuite(mode)` is the test of one busy mode: 20 chats × 5 messages, five
 * kills, one seed (more with HGW_BURST_SEEDS="1 2 3 …", run by hand). Each mode
 * has a test file of its own (telegram-sigkill-burst-<mode>.test.ts), so the
 * three run side by side.
 *
 * At most once has one window: a reply whose request left the daemon just
 * before a kill may or may not have reached Telegram, and is not sent again;
 * a preview posted just before a kill may never have had its id back, and
 * stays (the reply it showed whole is not sent again, whether that preview
 * reached Telegram or not; one cut off mid-way, or one whose turn answered
 * more messages when it ran again, stays beside the reply). What that window
 * explains is counted apart (BurstReport.inFlightAtKill) and reported;
 * anything else lost, doubled, out of order or half-written fails the test.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { type FakeLlmServer, type FakeRequest, type FakeTurn, fakeModelYaml, startFakeLlmServer } from "../fakes/llm-server.js";
import { FakeTelegramApi } from "../fakes/telegram-api.js";
import { dmText } from "../fakes/telegram-updates.js";
import { seededRandom } from "../seeded-random.js";
import { until } from "../wait.js";
import { telegramEnv } from "./helpers.js";

export interface BurstOptions {
  readonly mode: "interrupt" | "queue" | "steer";
  readonly seed: number;
  readonly chats?: number;
  readonly perChat?: number;
  readonly kills?: number;
}

export interface BurstReport {
  readonly messages: number;
  /** Messages a complete reply answered. */
  readonly answered: number;
  /** Messages more than one complete reply answered. */
  readonly doubled: number;
  /** Chats whose complete replies answer their messages out of order. */
  readonly outOfOrder: number;
  /** Inbound rows marked failed (set aside, or a turn that failed). */
  readonly failedRows: number;
  /** Warning notices in the chats (set aside, internal error, delivery failed). */
  readonly notices: readonly string[];
  /** Replies cut off mid-way left in the chats (previews), apart from those counted in `inFlightAtKill`. */
  readonly partial: number;
  /**
   * What the one window at most once leaves explains, not counted above. `lost`: unanswered messages whose
   * reply's request — or the request of a preview showing all of it — left the daemon less than IN_FLIGHT_MS
   * before a kill and never reached Telegram (the reply counts as maybe sent). `previews`: previews that reached
   * Telegram that shortly before a kill, their id never back, so they stay: cut off mid-way, or whole but
   * answering fewer messages than the reply their turn sent when it ran again.
   */
  readonly inFlightAtKill: { readonly lost: number; readonly previews: number };
  /** The msg of every error-level log line of every daemon life. */
  readonly errorLogs: readonly string[];
  readonly seconds: number;
  /** What each chat with a problem shows: its messages' texts, in order. */
  readonly problems: readonly string[];
}

const USER_BASE = 5000;
const END = "end";
/** How long before a kill a request that never got through counts as under way at it (a loaded machine stalls the daemon). */
const IN_FLIGHT_MS = 500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const marker = (chat: number, n: number) => `c${String(chat).padStart(2, "0")}m${n}`;

/** The markers of the user messages after the last assistant message: what this request has to answer. */
function unanswered(req: FakeRequest): string[] {
  const msgs = (req.body?.messages ?? []) as { role: string; content: unknown }[];
  const lastAssistant = msgs.map((m) => m.role).lastIndexOf("assistant");
  const text = msgs
    .slice(lastAssistant + 1)
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join(" ");
  return text.match(/c\d\dm\d+/g) ?? [];
}

function modelTurn(req: FakeRequest, rand: () => number): FakeTurn {
  const markers = unanswered(req);
  const text = markers.length ? `re ${markers.join(" ")} ${END}` : `nothing to answer ${END}`;
  const frames = 8;
  return { text, chunkChars: Math.ceil(text.length / frames), frameDelayMs: Math.round((300 + rand() * 500) / frames) };
}

async function writeConfig(home: string, llm: FakeLlmServer, o: BurstOptions): Promise<void> {
  const yaml = [
    ...fakeModelYaml(llm),
    "  request_timeout_s: 30",
    "gateway:",
    `  busy_input_mode: ${o.mode}`,
    "  drain_timeout_s: 1",
    "  platforms:",
    "    telegram:",
    "      poll_timeout_s: 1",
    "      streaming:",
    "        first_preview_ms: 500",
    "        edit_interval_ms: 250",
    "",
  ];
  await writeFile(join(home, "config.yaml"), yaml.join("\n"));
}

interface World {
  readonly home: string;
  readonly tg: FakeTelegramApi;
  readonly llm: FakeLlmServer;
  readonly lives: DaemonProcess[];
  /** Epoch ms of each SIGKILL. */
  readonly kills: number[];
  /** Epoch ms of each daemon start. */
  readonly spawns: number[];
  readonly chats: number;
}

/**
 * HGW_BURST_KEEP=<dir> keeps each run's evidence in <dir>/<mode>-seed<N>-<time>/: every daemon life's log (at
 * debug level), the store, the kills, the Bot API calls and the model requests, for reading a failure afterwards.
 */
const KEEP_DIR = process.env.HGW_BURST_KEEP;

function startDaemon(w: World): DaemonProcess {
  const users = Array.from({ length: w.chats }, (_, c) => String(USER_BASE + c)).join(",");
  const env = telegramEnv(w.home, w.tg, users);
  const d = spawnCli(["run"], KEEP_DIR ? { ...env, HERMES_LOG_LEVEL: "debug" } : env);
  w.lives.push(d);
  w.spawns.push(Date.now());
  return d;
}

/** Each chat sends its messages one after another, 0.3–1.5 s apart, starting within the first second. */
function scheduleMessages(w: World, perChat: number, rand: () => number): Promise<void> {
  const sends: Promise<void>[] = [];
  for (let c = 0; c < w.chats; c++) {
    let at = rand() * 1000;
    for (let n = 1; n <= perChat; n++) {
      const from = { id: USER_BASE + c, is_bot: false, first_name: `U${c}` };
      const text = marker(c, n);
      sends.push(sleep(at).then(() => void w.tg.pushUpdate(dmText(text, { from }))));
      at += 300 + rand() * 1200;
    }
  }
  return Promise.all(sends).then(() => undefined);
}

/** A reply a chat shows: its markers, whether it is whole, and when the request that posted it reached Telegram. */
interface Shown {
  readonly text: string;
  readonly markers: readonly string[];
  readonly complete: boolean;
  readonly postedAt: number;
}

/** The replies a chat shows, in order, and its warning notices. */
function shownIn(w: World, chat: number): { replies: Shown[]; notices: string[] } {
  const chatId = USER_BASE + chat;
  // The fake numbers a chat's messages 1, 2, … as it stores them: the n-th sendMessage that succeeded posted message n.
  const posted = w.tg
    .callsTo("sendMessage", chatId)
    .filter((c) => c.status === 200)
    .map((c) => c.at);
  const messages = w.tg.state.messages(chatId);
  const replies = messages
    .filter((m) => m.text.startsWith("re "))
    .map((m): Shown => {
      const complete = m.text.endsWith(` ${END}`);
      return { text: m.text, markers: complete ? m.text.split(" ").slice(1, -1) : [], complete, postedAt: posted[m.message_id - 1] ?? 0 };
    });
  return { replies, notices: messages.map((m) => m.text).filter((t) => t.startsWith("⚠️")) };
}

function allAnswered(w: World, perChat: number): boolean {
  for (let c = 0; c < w.chats; c++) {
    const seen = new Set(shownIn(w, c).replies.flatMap((r) => r.markers));
    for (let n = 1; n <= perChat; n++) if (!seen.has(marker(c, n))) return false;
  }
  return true;
}

async function kill(w: World, d: DaemonProcess): Promise<void> {
  w.kills.push(Date.now());
  d.child.kill("SIGKILL");
  await d.exited;
}

const justBeforeAKill = (w: World, at: number) => w.kills.some((k) => k >= at && k - at <= IN_FLIGHT_MS);
/** The start of the life after the one that was running at `at`. */
const nextSpawn = (w: World, at: number) => w.spawns.find((s) => s > at) ?? Number.POSITIVE_INFINITY;
/**
 * Whether a request that reached Telegram at `at` left a daemon just before a kill: it arrived at most IN_FLIGHT_MS
 * before one, or after it but before the next daemon started (the fake, loaded too, reads what is on its socket late).
 */
const sentJustBeforeAKill = (w: World, at: number) => w.kills.some((k) => k - IN_FLIGHT_MS <= at && at < nextSpawn(w, k));

interface LogRecord {
  readonly level?: number;
  readonly msg?: string;
  readonly sessionKey?: string;
  readonly postingAt?: string;
}

/** The JSON log records of every daemon life, in order. */
function logRecords(w: World): LogRecord[] {
  return w.lives.flatMap((d) =>
    d
      .stdout()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as LogRecord),
  );
}

/** Chats (Telegram chat ids) with a final reply marked "maybe sent" just before a kill and never confirmed. */
function chatsWithReplyInFlight(w: World, db: Database.Database): Set<string> {
  const rows = db.prepare(`SELECT chat_id, created_at FROM outbound_messages WHERE status = 'pending' AND idempotency_key LIKE '%:final:%'`).all() as {
    chat_id: string;
    created_at: number;
  }[];
  return new Set(rows.filter((r) => justBeforeAKill(w, r.created_at * 1000)).map((r) => r.chat_id));
}

/** A preview posting a daemon noted just before a kill and found cut off at a later start: its chat, when its request left. */
interface PostingAtKill {
  readonly chat: string;
  readonly at: number;
}

const STRAY_NOTED = "the previous run died while posting a reply preview: it may be in the chat; this run streams none";

/**
 * The preview postings under way at a kill, as the runs after it logged them. The reply of such a turn counts as
 * maybe sent when the preview carried all of it — whether its request reached Telegram or not.
 */
function postingsAtKills(w: World, logs: readonly LogRecord[]): PostingAtKill[] {
  return logs
    .filter((r) => r.msg === STRAY_NOTED && r.postingAt !== undefined && r.sessionKey !== undefined)
    .map((r) => ({ chat: r.sessionKey?.split(":").at(-1) ?? "", at: Date.parse(r.postingAt ?? "") }))
    .filter((p) => justBeforeAKill(w, p.at));
}

/**
 * A preview whose request reached Telegram just before a kill, so its id may never have come back to be removed:
 * one cut off mid-way, or a whole one whose turn, run again after the kill, answered more messages and so sent its
 * reply beside it (the daemon holds a reply back only when that preview showed the same text). A whole one whose
 * messages no other reply answers counts as their reply, and one beside a second copy of its text counts as doubled.
 */
function strayPreview(w: World, r: Shown, later: readonly Shown[], postings: readonly PostingAtKill[], chatId: string): boolean {
  if (!sentJustBeforeAKill(w, r.postedAt)) return false;
  if (!r.complete) return true;
  const noted = postings.some((p) => p.chat === chatId && p.at <= r.postedAt && r.postedAt < nextSpawn(w, p.at));
  return noted && later.some((l) => l.text !== r.text && l.markers.some((m) => r.markers.includes(m)));
}

function errorLogs(logs: readonly LogRecord[]): string[] {
  return logs.filter((r) => (r.level ?? 0) >= 50).map((r) => String(r.msg));
}

function report(w: World, perChat: number, seconds: number): BurstReport {
  const db = new Database(join(w.home, "state.db"), { readonly: true, fileMustExist: true });
  const failedRows = db.prepare(`SELECT count(*) FROM inbound_events WHERE status = 'failed'`).pluck().get() as number;
  const logs = logRecords(w);
  const postings = postingsAtKills(w, logs);
  const inFlightChats = new Set([...chatsWithReplyInFlight(w, db), ...postings.map((p) => p.chat)]);
  db.close();
  const totals = { answered: 0, doubled: 0, outOfOrder: 0, partial: 0 };
  const inFlightAtKill = { lost: 0, previews: 0 };
  const notices: string[] = [];
  const problems: string[] = [];
  for (let c = 0; c < w.chats; c++) {
    const shown = shownIn(w, c);
    notices.push(...shown.notices);
    const chatId = String(USER_BASE + c);
    const strays = shown.replies.filter((r, i) => strayPreview(w, r, shown.replies.slice(i + 1), postings, chatId));
    const kept = shown.replies.filter((r) => !strays.includes(r));
    const order = kept.flatMap((r) => r.markers);
    const times = Array.from({ length: perChat }, (_, n) => order.filter((m) => m === marker(c, n + 1)).length);
    const lost = times.filter((t) => t === 0).length;
    const partial = kept.filter((r) => !r.complete).length;
    const disordered = order.some((m, i) => i > 0 && m <= (order[i - 1] as string));
    totals.answered += times.filter((t) => t >= 1).length;
    totals.doubled += times.filter((t) => t > 1).length;
    totals.partial += partial;
    totals.outOfOrder += disordered ? 1 : 0;
    inFlightAtKill.previews += strays.length;
    if (inFlightChats.has(chatId)) inFlightAtKill.lost += lost;
    if (lost > 0 || disordered || partial > 0 || strays.length > 0 || shown.notices.length > 0 || times.some((t) => t > 1)) {
      problems.push(
        `chat ${c}: ${w.tg.state
          .messages(USER_BASE + c)
          .map((m) => JSON.stringify(m.text))
          .join(" | ")}`,
      );
    }
  }
  return { messages: w.chats * perChat, ...totals, inFlightAtKill, failedRows, notices, errorLogs: errorLogs(logs), seconds, problems };
}

/** Writes what the run left (see KEEP_DIR) and says where. */
async function keepEvidence(w: World, o: BurstOptions): Promise<void> {
  if (!KEEP_DIR) return;
  const dir = join(KEEP_DIR, `${o.mode}-seed${o.seed}-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  for (const [i, d] of w.lives.entries()) await writeFile(join(dir, `life-${i}.log`), d.stdout() + d.stderr());
  await cp(w.home, join(dir, "home"), { recursive: true });
  const calls = w.tg.calls
    .filter((c) => c.method !== "getUpdates")
    .map((c) => ({ at: c.at, method: c.method, chat: c.chatId, status: c.status, text: c.payload.text, id: c.payload.message_id }));
  const model = w.llm.completions().map((r) => ({ n: r.n, at: Math.round(performance.timeOrigin + r.receivedAt), markers: unanswered(r) }));
  await writeFile(join(dir, "world.json"), JSON.stringify({ kills: w.kills, calls, model }, null, 1));
  console.log(`burst ${o.mode} seed ${o.seed}: evidence kept in ${dir}`);
}

/** Runs one burst with its own home, fakes and daemons, and reports what the chats show. */
export async function runBurst(o: BurstOptions): Promise<BurstReport> {
  const rand = seededRandom(o.seed);
  const perChat = o.perChat ?? 5;
  const home = await mkdtemp(join(tmpdir(), "hermes-burst-"));
  const tg = new FakeTelegramApi();
  await tg.start();
  const llm = await startFakeLlmServer();
  const w: World = { home, tg, llm, lives: [], kills: [], spawns: [], chats: o.chats ?? 20 };
  const started = Date.now();
  try {
    llm.respondWith((req) => modelTurn(req, rand));
    await writeConfig(home, llm, o);
    let daemon = startDaemon(w);
    await daemon.waitForLog("hermes-gateway ready");
    const sent = scheduleMessages(w, perChat, rand);
    for (let k = 0; k < (o.kills ?? 5); k++) {
      await sleep(300 + rand() * 1500);
      await kill(w, daemon);
      daemon = startDaemon(w);
      await daemon.waitForLog("hermes-gateway ready", 60_000);
    }
    await sent;
    // What is still unanswered after a minute is for the report to show, message by message.
    await until(() => allAnswered(w, perChat), "every message answered", 60_000, 100).catch(() => undefined);
    // Anything sent twice would show by now.
    await sleep(1500);
    daemon.child.kill("SIGTERM");
    await daemon.exited;
    return report(w, perChat, (Date.now() - started) / 1000);
  } finally {
    for (const d of w.lives) if (d.child.exitCode === null && d.child.signalCode === null) await kill(w, d);
    await keepEvidence(w, o);
    await llm.close();
    await tg.close();
    await rm(home, { recursive: true, force: true });
  }
}

const seeds = (process.env.HGW_BURST_SEEDS ?? "1")
  .split(/[\s,]+/)
  .filter(Boolean)
  .map(Number);

/** No reply lost, doubled or reordered, and no message set aside, in busy mode `mode`, for each seed. */
export function burstSuite(mode: BurstOptions["mode"]): void {
  describe(`a burst of chats while the daemon is SIGKILLed five times (${mode})`, () => {
    for (const seed of seeds) {
      it(`${mode}, seed ${seed}: every message answered once, in order, none set aside`, async () => {
        const r = await runBurst({ mode, seed });
        console.log(`burst ${mode} seed ${seed}: ${JSON.stringify(r)}`);
        const { answered, doubled, outOfOrder, partial, failedRows, notices, errorLogs } = r;
        expect({ answered: answered + r.inFlightAtKill.lost, doubled, outOfOrder, partial, failedRows, notices, errorLogs }, r.problems.join("\n")).toEqual({
          answered: r.messages,
          doubled: 0,
          outOfOrder: 0,
          partial: 0,
          failedRows: 0,
          notices: [],
          errorLogs: [],
        });
      }, 240_000);
    }
  });
}
