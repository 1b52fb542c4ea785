/**
 * The whole daemon, BUILT (`node dist/gateway/cli.js run`; tsx over the
 * sources only if dist/ is missing), as a child process between the fake
 * Telegram Bot API and an instant fake LLM, with HERMES_HOME in a temp dir.
 * Reports start → ready, update → sendMessage overhead at 1/50/200 chats, an idle bot's warm turn overhead
 * on default limits with the daemon's per-stage breakdown,
 * the daemon's own event-loop delay (GET /metrics), RSS idle and over 10,000
 * turns, outbound rate against Telegram's flood limits, and the same load
 * with ten MCP servers (several broken) beside a run without.
 *
 *   npm run build && node --import tsx bench/daemon-telegram.bench.ts [options]
 *   (or: npm run bench -- daemon-telegram)
 *
 * Options (flag or env):
 *   --turns=N           BENCH_TURNS          turns on the overhead daemon, RSS half-way and at the end (10000)
 *   --plateau-turns=N   BENCH_PLATEAU_TURNS  then on to N turns in steps of --turns, RSS after each: shows whether
 *                                            memory levels off once bounded caches are full (30000; 0: stop at --turns)
 *   --starts=N          BENCH_STARTS         start → ready runs (5)
 *   --poll-timeout=S    BENCH_POLL_TIMEOUT_S telegram poll_timeout_s (1)
 *   --level-seconds=S   BENCH_LEVEL_S        duration of the 50- and 200-chat levels (15)
 *   --think-ms=A-B      BENCH_THINK_MS       pause between a reply and a chat's next message (1000-3000)
 *   --serial-turns=N    BENCH_SERIAL_TURNS   turns of the 1-chat level (200)
 *   --warm-rounds=N     BENCH_WARM_ROUNDS    warm path: rounds, a fresh daemon each, pooled (3)
 *   --warm-turns=N      BENCH_WARM_TURNS     warm path: measured turns per round (200)
 *   --warm-chats=N      BENCH_WARM_CHATS     warm path: chats, each a message every 1.1 s, staggered so no two turns overlap (4)
 *   --soak-chats=N      BENCH_SOAK_CHATS     chats of the saturating soak (50)
 *   --mcp-seconds=S     BENCH_MCP_S          load duration of each MCP comparison run (15)
 *   --mcp-rounds=N      BENCH_MCP_ROUNDS     runs with MCP, alternating with runs without: N + 1 without, N with (5)
 *   --mcp-settle=S      BENCH_MCP_SETTLE_S   wait this long after ready before each MCP comparison load (0: the load
 *                                            overlaps the servers' boot; 10: discovery has settled, the crash loop,
 *                                            hang retries and flood go on)
 *   --mcp-neighbour     BENCH_MCP_NEIGHBOUR=1  each run without MCP gets a second daemon beside it carrying the ten
 *                                            servers (no chats): the machine bears their CPU in both kinds of run
 *   --driver-nice=N     BENCH_DRIVER_NICE    run this process (the fakes and the load driver) at niceness N (5; -20…19): in the
 *                                            daemons' cpu cgroup (see below), or without one, in a session of its own whose
 *                                            Linux autogroup niceness is N: they stand for Telegram's and the provider's
 *                                            machines, so they yield the CPU to the daemon (see driver-session.ts)
 *   --only=a,b          BENCH_SECTIONS       start, overhead, warm, rate, mcp (all)
 *   --mcp                                    only the MCP comparison; --no-mcp: everything else
 *   --profile           BENCH_PROFILE=1      CPU-profile the overhead daemon (and the first MCP run and the first run without)
 *                                            and print where its time went; for MCP, also what the main thread spent beyond
 *                                            the run without, by area and function, over the load
 *                                            (the profiler's sampling costs a little: figures get slightly worse)
 *
 * BENCH_NODE_FLAGS="--flag …" gives the daemon extra node flags (none by default, as deployed).
 * BENCH_DAEMON_DIST=<checkout>/dist runs that build's daemon instead of this checkout's (before/after comparisons
 * under one bench; see bench/README.md).
 * BENCH_MACHINE_PROBES=0 turns off the MCP section's machine probes and the stall recorder it preloads into each of its
 * daemons (machine-probe.ts, stall-recorder.ts; on by default where they can run: root, taskset, chrt).
 * BENCH_DAEMON_CGROUP=shared (default: this process and every daemon in one new cpu cgroup), own (each daemon in a
 * cgroup of its own, this process outside) or off (the daemons where this process runs); see daemon-cgroup.ts
 * (a cgroup needs root).
 */
import { statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { cgroupNote } from "../test/fakes/daemon-cgroup.js";
import { Cleanup, cliArgs, daemonNodeFlags, mallocArenaMax, tempDir } from "./daemon-harness.js";
import { mcpSection, priorityRows } from "./daemon-mcp.js";
import { profileRows, readProfile } from "./daemon-profile.js";
import { rateSection } from "./daemon-rate.js";
import { mcpRows, overheadRows, printTable, rateRows, startRows, warmRows } from "./daemon-report.js";
import { overheadSection, startSection } from "./daemon-sections.js";
import { warmSection } from "./daemon-warm.js";
import { driverSession } from "./driver-session.js";
import type { Row } from "./report-row.js";

/** A chat's message interval in the warm-path section: over a second, so Telegram's per-chat limit never applies. */
const WARM_PERIOD_MS = 1100;

const SECTIONS = ["start", "overhead", "warm", "rate", "mcp"] as const;
type Section = (typeof SECTIONS)[number];

interface Options {
  readonly turns: number;
  readonly plateauTurns: number;
  readonly starts: number;
  readonly pollTimeoutS: number;
  readonly levelMs: number;
  readonly thinkMs: readonly [number, number];
  readonly serialTurns: number;
  readonly warmRounds: number;
  readonly warmTurns: number;
  readonly warmChats: number;
  readonly soakChats: number;
  readonly mcpMs: number;
  readonly mcpSettleMs: number;
  readonly mcpRounds: number;
  readonly mcpNeighbour: boolean;
  readonly machineProbes: boolean;
  readonly sections: ReadonlySet<Section>;
  readonly profile: boolean;
  readonly driverNice: number;
}

function options(): Options {
  const { values: v } = parseArgs({
    options: {
      turns: { type: "string" },
      "plateau-turns": { type: "string" },
      starts: { type: "string" },
      "poll-timeout": { type: "string" },
      "level-seconds": { type: "string" },
      "think-ms": { type: "string" },
      "serial-turns": { type: "string" },
      "warm-rounds": { type: "string" },
      "warm-turns": { type: "string" },
      "warm-chats": { type: "string" },
      "soak-chats": { type: "string" },
      "mcp-seconds": { type: "string" },
      "mcp-settle": { type: "string" },
      "mcp-rounds": { type: "string" },
      "mcp-neighbour": { type: "boolean" },
      only: { type: "string" },
      mcp: { type: "boolean" },
      "no-mcp": { type: "boolean" },
      profile: { type: "boolean" },
      "driver-nice": { type: "string" },
    },
  });
  const env = process.env;
  const num = (flag: string | undefined, name: string, dflt: number, min = 0): number => {
    const raw = flag ?? env[name];
    const n = raw === undefined ? dflt : Number(raw);
    if (!Number.isFinite(n) || n < min) throw new Error(`${name}: not a number ≥ ${min}: ${raw}`);
    return n;
  };
  const think = (v["think-ms"] ?? env.BENCH_THINK_MS ?? "1000-3000").split("-").map(Number);
  if (think.length !== 2 || think.some((x) => !Number.isFinite(x))) throw new Error("--think-ms must look like 1000-3000");
  return {
    turns: num(v.turns, "BENCH_TURNS", 10_000),
    plateauTurns: num(v["plateau-turns"], "BENCH_PLATEAU_TURNS", 30_000),
    starts: num(v.starts, "BENCH_STARTS", 5),
    pollTimeoutS: num(v["poll-timeout"], "BENCH_POLL_TIMEOUT_S", 1),
    levelMs: num(v["level-seconds"], "BENCH_LEVEL_S", 15) * 1000,
    thinkMs: [think[0] ?? 1000, think[1] ?? 3000],
    serialTurns: num(v["serial-turns"], "BENCH_SERIAL_TURNS", 200),
    warmRounds: Math.max(1, Math.round(num(v["warm-rounds"], "BENCH_WARM_ROUNDS", 3))),
    warmTurns: Math.max(1, Math.round(num(v["warm-turns"], "BENCH_WARM_TURNS", 200))),
    warmChats: Math.max(1, Math.round(num(v["warm-chats"], "BENCH_WARM_CHATS", 4))),
    soakChats: num(v["soak-chats"], "BENCH_SOAK_CHATS", 50),
    mcpMs: num(v["mcp-seconds"], "BENCH_MCP_S", 15) * 1000,
    mcpSettleMs: num(v["mcp-settle"], "BENCH_MCP_SETTLE_S", 0) * 1000,
    mcpRounds: Math.max(1, Math.round(num(v["mcp-rounds"], "BENCH_MCP_ROUNDS", 5))),
    mcpNeighbour: v["mcp-neighbour"] === true || env.BENCH_MCP_NEIGHBOUR === "1",
    machineProbes: env.BENCH_MACHINE_PROBES !== "0",
    sections: sectionsOf(v.only ?? env.BENCH_SECTIONS, v.mcp === true, v["no-mcp"] === true),
    profile: v.profile === true || env.BENCH_PROFILE === "1",
    driverNice: Math.min(19, Math.round(num(v["driver-nice"], "BENCH_DRIVER_NICE", 5, -20))),
  };
}

function sectionsOf(only: string | undefined, mcpOnly: boolean, noMcp: boolean): Set<Section> {
  if (mcpOnly) return new Set(["mcp"]);
  const picked = only ? only.split(",").map((s) => s.trim()) : [...SECTIONS];
  for (const s of picked) if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`unknown section "${s}" (have: ${SECTIONS.join(", ")})`);
  return new Set((picked as Section[]).filter((s) => !(noMcp && s === "mcp")));
}

function header(o: Options, driver: string): void {
  const cli = cliArgs();
  const built = cli.kind === "dist" ? `built ${statSync(cli.cli).mtime.toISOString()}` : "dist/ missing: running the sources through tsx (slower start)";
  const cpu = cpus()[0]?.model ?? "unknown cpu";
  console.log(`hermes-gateway daemon benchmark — daemon: node ${cli.args.join(" ")} (${built})`);
  console.log(
    `machine: ${cpus().length} × ${cpu}, Node ${process.version}; load average at start ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    `settings: turns ${o.turns} (then to ${o.plateauTurns}),${o.profile ? " CPU profile on," : ""} start runs ${o.starts}, poll_timeout_s ${o.pollTimeoutS}, levels ${o.levelMs / 1000} s, think ${o.thinkMs.join("–")} ms, sections ${[...o.sections].join(",")}, MALLOC_ARENA_MAX ${mallocArenaMax()}, node flags ${daemonNodeFlags().join(" ") || "(none)"}`,
  );
  console.log(driver);
  console.log(cgroupNote());
}

const NOTES = `
How to read this:
- overhead = the update pushed into the fake Bot API → the fake receiving the daemon's sendMessage for it
  (the instant LLM answers at once). It includes long-poll delivery: the fake answers a parked getUpdates the
  moment an update arrives, so an idle daemon gets it after one loopback round trip; a busy one gets it with
  its next getUpdates, which it sends once the batch in hand is committed and which returns at once.
  poll_timeout_s only bounds how long an idle poll stays parked; it adds no latency here (nor with Telegram).
  The split: "update confirmed" = the next getUpdates whose offset passes the update (delivery + durable commit
  of its batch), "LLM request" = the model request for it reaching the fake LLM.
- 50/200-chat levels: each chat waits the think time between a reply and its next message (people typing);
  "no think time" runs saturate the daemon, so their overhead is queueing (≈ chats ÷ throughput).
- With default limits the typing action takes only the global budget, never the chat's 1/s slot, and is skipped
  when a message for that chat is already queued: an instant reply is not held back by its own typing action.
- warm path = an idle bot's turn: the update pushed → the reply's sendMessage at the fake, minus the model's own
  time (the fake LLM's request received → answer written), default limits, flood control on. The stages are the
  daemon's own hermes_turn_stage_seconds, each from the mark before it (committed from deliver()).
- event-loop delay = prom-client's hermes_nodejs_eventloop_lag_*_seconds from /metrics (reset by each scrape; one
  scrape before a level, one after) less the 10 ms sampling interval: how late the sampling timer fired, so an idle
  loop reads ≈ 0 and max is the longest block.
  Time the main thread spends runnable but without a CPU (other processes on the machine) shows as delay too:
  see "waiting for a CPU" in the CPU rows.
- RSS = hermes_process_resident_memory_bytes, read 3 s after a load ("busy": V8 still holds the burst's garbage)
  and again once the daemon's idle GC has run (gateway.idle_gc_after_s, 5 s here, 30 s by default): the idle
  figure is what the daemon keeps while nothing happens. anon = heaps, SQLite's page cache (16 MiB cap), malloc;
  file = the node binary and libraries (state.db is not memory-mapped). The daemon runs with MALLOC_ARENA_MAX as the Dockerfile and systemd unit set it (BENCH_MALLOC_ARENA_MAX), and with the extra node flags of BENCH_NODE_FLAGS if set.
- The fakes and this load driver run in this process and share the machine's cores with the daemon. Deployed,
  they are Telegram's and the provider's machines: by default this process runs at niceness 5 (--driver-nice) beside
  the daemon (niceness 0) in one cpu cgroup, so the daemon gets a CPU first when both want one, and the MCP servers
  (SCHED_IDLE) yield to both, as they would not slow a remote machine. Without a cgroup it runs in a Linux session of
  its own at group niceness 5 instead.`;

async function main(): Promise<number> {
  const o = options();
  const session = await driverSession(o.driverNice);
  if (session.kind === "exited") return session.code;
  header(o, session.note);
  const cleanup = new Cleanup();
  const onSignal = (sig: NodeJS.Signals): void => {
    process.stderr.write(`\n${sig}: cleaning up…\n`);
    void cleanup.run().then((failed) => {
      for (const f of failed) process.stderr.write(`cleanup failed: ${f}\n`);
      process.exit(130);
    });
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const leftovers: string[] = [];
  let code = 0;
  try {
    await runSections(o, cleanup, leftovers);
    console.log(`\nprocesses the daemon left behind after SIGTERM: ${leftovers.length ? leftovers.join("; ") : "none"}`);
    console.log(NOTES);
  } catch (err) {
    code = 1;
    console.error(`\nbenchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  } finally {
    const failed = await cleanup.run();
    for (const f of failed) console.error(`cleanup failed: ${f}`);
    if (failed.length) code = 1;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  console.log(
    `load average at end ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  return code;
}

async function runSections(o: Options, cleanup: Cleanup, leftovers: string[]): Promise<void> {
  type Result = { rows: Row[]; leftovers: readonly string[]; extra?: { title: string; rows: Row[] } };
  const section = async (name: Section, title: string, run: () => Promise<Result>): Promise<void> => {
    if (!o.sections.has(name)) return;
    process.stderr.write(`${title}…\n`);
    const r = await run();
    leftovers.push(...r.leftovers);
    printTable(title, r.rows);
    if (r.extra) printTable(r.extra.title, r.extra.rows);
  };
  await section("start", "1. start → ready", async () => {
    const runs = await startSection(o.starts, o.pollTimeoutS, cleanup);
    return { rows: startRows(runs), leftovers: runs.flatMap((r) => r.leftovers) };
  });
  await section("overhead", "2–4. overhead, event loop, memory (flood control off, limits raised)", async () => {
    const profileDir = o.profile ? await tempDir(cleanup, "hermes-bench-profile-") : undefined;
    const f = await overheadSection(
      {
        pollTimeoutS: o.pollTimeoutS,
        serialTurns: o.serialTurns,
        levelMs: o.levelMs,
        thinkMs: o.thinkMs,
        totalTurns: o.turns,
        plateauTurns: o.plateauTurns,
        soakChats: o.soakChats,
        settleMs: 3000,
        ...(profileDir ? { profileDir } : {}),
      },
      cleanup,
    );
    const extra = profileDir
      ? { title: "where the overhead daemon's main thread spent its time (V8 CPU profile, whole run)", rows: profileRows(await readProfile(profileDir)) }
      : undefined;
    return { rows: overheadRows(f), leftovers: f.leftovers, ...(extra ? { extra } : {}) };
  });
  await section("warm", "5. warm path: an idle bot's turn overhead (default limits, flood control on)", async () => {
    const f = await warmSection(
      { pollTimeoutS: o.pollTimeoutS, chats: o.warmChats, turns: o.warmTurns, rounds: o.warmRounds, periodMs: WARM_PERIOD_MS, warmupTurns: 20 },
      cleanup,
    );
    return { rows: warmRows(f), leftovers: f.leftovers };
  });
  await section("rate", "6. outbound rate (flood control on, default limits)", async () => {
    const f = await rateSection(
      {
        pollTimeoutS: o.pollTimeoutS,
        thinkMs: o.thinkMs,
        levelMs: Math.min(o.levelMs, 10_000),
        oneChatMessages: 8,
        groupMessages: 5,
        severalChats: 20,
        severalChatsMessages: 5,
        manyChats: 90,
        diagnosticConcurrency: 200,
      },
      cleanup,
    );
    return { rows: rateRows(f), leftovers: f.leftovers };
  });
  const settled = o.mcpSettleMs > 0 ? `, load from ${o.mcpSettleMs / 1000} s after ready` : ", load from ready";
  const neighbour = o.mcpNeighbour ? "; each run without MCP beside a daemon that carries the ten servers" : "";
  await section(
    "mcp",
    `7. ten MCP servers vs none, ${o.mcpRounds} rounds of runs without / with, then without (50 chats, flood control off, limits raised${settled}${neighbour})`,
    async () => {
      const profileDir = o.profile ? await tempDir(cleanup, "hermes-bench-mcp-profile-") : undefined;
      const f = await mcpSection(
        {
          pollTimeoutS: o.pollTimeoutS,
          thinkMs: o.thinkMs,
          durationMs: o.mcpMs,
          settleMs: o.mcpSettleMs,
          rounds: o.mcpRounds,
          neighbour: o.mcpNeighbour,
          machineProbes: o.machineProbes,
          ...(profileDir ? { profileDir } : {}),
        },
        cleanup,
      );
      const extra = f.profile
        ? {
            title: "where the MCP daemon's main thread spent its time (V8 CPU profile, whole run), and what it spent beyond run 1 without MCP during the load",
            rows: [...f.profile, ...(f.profileDiff ?? [])],
          }
        : undefined;
      return { rows: [...mcpRows(f), ...priorityRows(f)], leftovers: [...f.without, ...f.with].flatMap((r) => r.leftovers), ...(extra ? { extra } : {}) };
    },
  );
}

process.exitCode = await main();
