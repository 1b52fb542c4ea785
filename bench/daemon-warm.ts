/**
 * The warm path of the daemon benchmark: what a turn costs on top of the model
 * while the bot is otherwise idle, which is what a person chatting with it
 * waits for. The daemon runs on Telegram's default limits (1/s per chat,
 * 20/min per group, 30/s global) against the fake with flood control ON.
 *
 * Each of a few chats sends one message every `periodMs` (1.1 s, so no
 * per-chat limit applies), the chats evenly staggered so that no two turns
 * overlap: every turn finds the bot idle, as one chat alone would, in a
 * fraction of the time. Warm turn overhead = the update pushed into the fake →
 * the fake receiving the reply's sendMessage, minus the model's own time (the
 * fake LLM receiving the request → its answer written out).
 *
 * Every round is a fresh daemon with warm-up turns first (not reported); the
 * rounds are pooled. The daemon's per-stage histograms
 * (`hermes_turn_stage_seconds`) are scraped before and after each round's
 * load and reported beside it.
 */
import { loadavg } from "node:os";
import type { UserShape } from "../test/fakes/telegram-updates.js";
import { type CpuSample, cpuDelta, cpuSample } from "./daemon-cpu.js";
import { type Cleanup, scrape } from "./daemon-harness.js";
import { oneTurn, sleep, type TurnTiming } from "./daemon-load.js";
import { log, readyDaemon, stopChecked } from "./daemon-sections.js";
import { type StageFigures, stageFigures } from "./daemon-stages.js";
import { startWorld, trimRecords, type World } from "./daemon-world.js";

export interface WarmOptions {
  readonly pollTimeoutS: number;
  readonly chats: number;
  /** Reported turns per round. */
  readonly turns: number;
  readonly rounds: number;
  /** Each chat's message interval. */
  readonly periodMs: number;
  /** Turns per round before the measured ones (lazy imports, first sessions, JIT). */
  readonly warmupTurns: number;
}

export interface WarmRound {
  readonly turns: TurnTiming[];
  readonly wallMs: number;
  /** The daemon's event-loop max over the load (ms). */
  readonly loopMaxMs: number;
  /** The daemon's CPU over the load: its main thread's own work, and how long it sat waiting for a CPU. */
  readonly cpu: CpuSample;
  /** 429s the fake's flood control answered during the round's load, and why: bucket and how early the call came. */
  readonly floods: number;
  readonly floodWhy: readonly string[];
  readonly loadAvg: number;
  /** /metrics before and after the load, for the stage histograms. */
  readonly scrapes: readonly [before: string, after: string];
}

export interface WarmFigures {
  readonly options: WarmOptions;
  readonly rounds: WarmRound[];
  /** Every round's stage histograms pooled; null when the daemon exports none. */
  readonly stages: StageFigures[] | null;
  readonly leftovers: readonly string[];
}

/** A turn's overhead: the reply's arrival minus the model's own time. */
export const warmOverheadMs = (t: TurnTiming): number => t.replyMs - t.modelMs;

export async function warmSection(o: WarmOptions, cleanup: Cleanup): Promise<WarmFigures> {
  const w = await startWorld(cleanup, { users: o.chats, flood: true });
  const rounds: WarmRound[] = [];
  const leftovers: string[] = [];
  for (let r = 1; r <= o.rounds; r++) {
    const d = await readyDaemon(`warm${r}`, w, { pollTimeoutS: o.pollTimeoutS, rateLimits: null }, cleanup);
    await periodic(w, o, o.warmupTurns, `warmup${r}`);
    await sleep(o.periodMs); // every budget full again
    const floods = w.tg.flood429s;
    const floodLog = w.tg.floodLog.length;
    const before = await scrape(d);
    const cpu0 = cpuSample(d.pid);
    const load = await periodic(w, o, o.turns, `warm${r}`);
    const cpu = cpuDelta(cpu0, cpuSample(d.pid));
    const after = await scrape(d);
    const floodWhy = w.tg.floodLog.slice(floodLog).map((f) => `${f.bucket.split(":")[0]} ${f.earlyMs.toFixed(0)} ms early`);
    rounds.push({
      ...load,
      loopMaxMs: after.loopMaxMs,
      cpu,
      floods: w.tg.flood429s - floods,
      floodWhy,
      loadAvg: loadavg()[0] ?? 0,
      scrapes: [before.raw, after.raw],
    });
    leftovers.push(...(await stopChecked(d, `warm round ${r}`)));
    trimRecords(w);
    log(`warm round ${r}/${o.rounds}: ${load.turns.length} turns in ${(load.wallMs / 1000).toFixed(1)} s`);
  }
  return { options: o, rounds, stages: stageFigures(rounds.map((r) => r.scrapes)), leftovers };
}

/**
 * `turns` turns in all: each chat sends a message every `periodMs` (or, if its reply took longer, as soon as
 * the reply is in); chat i starts i/chats of a period after the first.
 */
async function periodic(w: World, o: WarmOptions, turns: number, tag: string): Promise<{ turns: TurnTiming[]; wallMs: number }> {
  const out: TurnTiming[] = [];
  let issued = 0;
  const t0 = performance.now();
  const chat = async (user: UserShape, i: number): Promise<void> => {
    await sleep((i * o.periodMs) / o.chats);
    for (let seq = 0; issued < turns; seq++) {
      issued++;
      const sentAt = performance.now();
      out.push(await oneTurn(w, user, `tok${tag}-${user.id}-${seq}`, 60_000));
      await sleep(Math.max(0, sentAt + o.periodMs - performance.now()));
    }
  };
  await Promise.all(w.users.slice(0, o.chats).map(chat));
  return { turns: out, wallMs: performance.now() - t0 };
}
