/**
 * Telegram adapter figures against the fake Bot API with Telegram's flood
 * control switched on (GCRA per chat, per group, global):
 *   1. outbound burst to one private chat      (limit: 1 msg/s per chat)
 *   2. outbound burst to one group             (limit: 20 msg/min per group)
 *   3. outbound burst across many chats        (limit: 30 msg/s global)
 *   4. inbound update → sink.deliver() latency (polling; one at a time, then a burst)
 * Target: ≥95% of each limit with zero 429s from flood control. The adapter
 * paces at 97% of each limit (headroom for jitter), so ~97% is the ceiling.
 *
 * For 1–3 the fake runs in a worker thread, so its clock and flood control
 * are not skewed by sharing an event loop with the adapter. 4 measures the
 * adapter alone, with the fake in-process.
 *
 * Run: node --import tsx bench/telegram.bench.ts [--quick]
 */
import { performance } from "node:perf_hooks";
import type { Worker } from "node:worker_threads";
import { pino } from "pino";
import { TelegramAdapter } from "../adapters/telegram/index.js";
import type { ChatRef } from "../adapters/types.js";
import { ConfigSchema, type TelegramConfig } from "../config/index.js";
import type { FakeTelegramOptions } from "../test/fakes/telegram-api.js";
import { dmText } from "../test/fakes/telegram-updates.js";
import { FAST_TIMING, type RecordingSink, startHarness } from "../test/telegram/harness.js";
import type { WorkerStats } from "./telegram-fake-worker.js";
import { tsWorker } from "./ts-worker.js";

const QUICK = process.argv.includes("--quick");
const LIMITS = { per_chat_per_s: 1, per_group_per_min: 20, global_per_s: 30 };
/** The fake's GCRA burst tolerance: about one global cell, standing in for network jitter. */
const FLOOD_TOLERANCE_MS = 40;

/** The fake Bot API in a worker thread, driven by messages. */
class WorkerFake {
  private nextId = 1;
  private readonly pending = new Map<number, (v: unknown) => void>();
  private constructor(
    private readonly worker: Worker,
    readonly apiRoot: string,
    readonly token: string,
  ) {
    worker.on("message", (m: { id?: number; result?: unknown }) => {
      if (m.id !== undefined) this.pending.get(m.id)?.(m.result);
    });
  }

  static start(opts: FakeTelegramOptions): Promise<WorkerFake> {
    const worker = tsWorker(new URL("./telegram-fake-worker.ts", import.meta.url), opts);
    return new Promise((resolve, reject) => {
      worker.once("error", reject);
      worker.once("message", (m: { apiRoot: string; token: string }) => resolve(new WorkerFake(worker, m.apiRoot, m.token)));
    });
  }

  stats(): Promise<WorkerStats> {
    return this.request({ op: "stats" }) as Promise<WorkerStats>;
  }

  async close(): Promise<void> {
    await this.request({ op: "close" });
    await this.worker.terminate();
  }

  private request(msg: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ ...msg, id });
    });
  }
}

async function outbound(name: string, limit: number, unit: "msg/s" | "msg/min", sends: (a: TelegramAdapter) => Array<Promise<unknown>>): Promise<void> {
  const fake = await WorkerFake.start({
    flood: { perChatPerS: LIMITS.per_chat_per_s, perGroupPerMin: LIMITS.per_group_per_min, globalPerS: LIMITS.global_per_s, toleranceMs: FLOOD_TOLERANCE_MS },
  });
  const config = ConfigSchema.parse({ gateway: { platforms: { telegram: { token: fake.token, api_root: fake.apiRoot, rate_limits: LIMITS } } } }).gateway
    .platforms.telegram as TelegramConfig;
  const adapter = new TelegramAdapter({ config, downloadDir: "/nonexistent", logger: pino({ level: "silent" }), timing: FAST_TIMING });
  try {
    await Promise.all(sends(adapter));
    const stats = await fake.stats();
    const times = stats.calls.filter((c) => c.method === "sendMessage").map((c) => c.at);
    const perS = ((times.length - 1) * 1000) / ((times.at(-1) ?? 0) - (times[0] ?? 0));
    const achieved = unit === "msg/min" ? perS * 60 : perS;
    const pct = (achieved / limit) * 100;
    const verdict = pct >= 95 && stats.flood429s === 0 ? "OK" : "BELOW TARGET";
    console.log(
      `${name.padEnd(30)} ${times.length.toString().padStart(4)} calls ${achieved.toFixed(3).padStart(8)} ${unit} (limit ${limit}) ${pct.toFixed(1).padStart(5)}%  flood 429s: ${stats.flood429s}  ${verdict}`,
    );
    for (const f of stats.floodLog) console.log(`  429 from ${f.bucket}: call arrived ${f.earlyMs.toFixed(0)} ms early (beyond the fake's tolerance)`);
  } finally {
    await adapter.stop(AbortSignal.timeout(5000));
    await fake.close();
  }
}

function chat(id: string, type: ChatRef["chatType"] = "dm"): ChatRef {
  return { platform: "telegram", chatId: id, chatType: type };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function inbound(): Promise<void> {
  const h = await startHarness();
  try {
    const sink = h.sink as RecordingSink;
    const n = QUICK ? 100 : 300;
    const pushedAt = new Map<string, number>();
    const latencies: number[] = [];
    sink.behaviour = async (e) => {
      const t0 = pushedAt.get(e.eventId);
      if (t0 !== undefined) latencies.push(performance.now() - t0);
      return { status: "accepted" };
    };
    for (let i = 0; i < n; i++) {
      const before = sink.committed.length;
      const t0 = performance.now();
      pushedAt.set(String(h.fake.pushUpdate(dmText(`ping ${i}`))), t0);
      await sink.until(() => sink.committed.length > before);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(
      `inbound update → deliver (one at a time)  n=${n}  p50 ${percentile(sorted, 50).toFixed(2)} ms  p95 ${percentile(sorted, 95).toFixed(2)} ms  p99 ${percentile(sorted, 99).toFixed(2)} ms`,
    );
    const burst = QUICK ? 300 : 1000;
    const start = sink.committed.length;
    const t0 = performance.now();
    for (let i = 0; i < burst; i++) h.fake.pushUpdate(dmText(`burst ${i}`));
    await sink.until(() => sink.committed.length === start + burst, 60_000);
    const secs = (performance.now() - t0) / 1000;
    console.log(`inbound burst throughput                 n=${burst}  ${(burst / secs).toFixed(0)} updates/s  (${secs.toFixed(2)} s)`);
  } finally {
    await h.close();
  }
}

async function main(): Promise<void> {
  console.log(`Telegram adapter bench (${QUICK ? "quick" : "full"}), node ${process.version}`);
  const oneChat = QUICK ? 6 : 15;
  await outbound("burst → one private chat", LIMITS.per_chat_per_s, "msg/s", (a) =>
    Array.from({ length: oneChat }, (_, i) => a.send(chat("42"), { text: `m${i}` })),
  );
  const groupMsgs = QUICK ? 3 : 6;
  await outbound("burst → one group", LIMITS.per_group_per_min, "msg/min", (a) =>
    Array.from({ length: groupMsgs }, (_, i) => a.send(chat("-100123", "group"), { text: `g${i}` })),
  );
  const chats = QUICK ? 60 : 150;
  await outbound("burst → many chats (global)", LIMITS.global_per_s, "msg/s", (a) =>
    Array.from({ length: chats * 2 }, (_, i) => a.send(chat(String(10_000 + (i % chats))), { text: `c${i}` })),
  );
  await inbound();
}

await main();
