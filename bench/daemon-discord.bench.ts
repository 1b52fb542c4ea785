/**
 * The whole daemon, BUILT (`node dist/gateway/cli.js run`; tsx over the
 * sources only if dist/ is missing), as a child process between the fake
 * Discord (REST + gateway; the real discord.js inside the daemon) and an
 * instant fake LLM. Reports start → Discord ready, warm turn overhead (message
 * posted → reply POST, one chat), a burst of 20 channels × 5 messages (all
 * answered, none twice) with RSS after it, and the event-loop delay while the
 * fake forces a gateway reconnect every 30 s under light load.
 *
 *   npm run build && node --import tsx bench/daemon-discord.bench.ts [options]
 *   (or: npm run bench -- daemon-discord)
 *
 * Options (flag or env):
 *   --starts=N             BENCH_STARTS            start → ready runs (3)
 *   --serial-turns=N       BENCH_SERIAL_TURNS      turns of the one-chat overhead level (200)
 *   --reconnect-seconds=S  BENCH_RECONNECT_S       duration of the reconnect section (95: three reconnects)
 *   --driver-nice=N        BENCH_DRIVER_NICE       niceness of this process (fakes + load driver), as in daemon-telegram (5)
 */
import { cpus, loadavg, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { cpuDelta, cpuSample } from "./daemon-cpu.js";
import { type BenchDaemon, Cleanup, checkReady, cliArgs, logRecords, pollUntil, scrape, spawnDaemon } from "./daemon-harness.js";
import { percentiles, sleep } from "./daemon-load.js";
import { printTable } from "./daemon-report.js";
import { log, stopChecked } from "./daemon-sections.js";
import {
  type DiscordTurn,
  type DiscordWorld,
  discordConfigYaml,
  discordEnv,
  discordTurn,
  dmOf,
  repliesPerToken,
  startDiscordWorld,
  trimDiscordRecords,
} from "./discord-world.js";
import { driverSession } from "./driver-session.js";
import type { Row } from "./report-row.js";

const BURST_CHANNELS = 20;
const BURST_PER_CHANNEL = 5;
const RECONNECT_EVERY_MS = 30_000;
const RECONNECT_CHATS = 10;

interface Options {
  readonly starts: number;
  readonly serialTurns: number;
  readonly reconnectMs: number;
  readonly driverNice: number;
}

function options(): Options {
  const { values: v } = parseArgs({
    options: { starts: { type: "string" }, "serial-turns": { type: "string" }, "reconnect-seconds": { type: "string" }, "driver-nice": { type: "string" } },
  });
  const num = (flag: string | undefined, name: string, dflt: number): number => {
    const raw = flag ?? process.env[name];
    const n = raw === undefined ? dflt : Number(raw);
    if (!Number.isFinite(n)) throw new Error(`${name}: not a number: ${raw}`);
    return n;
  };
  return {
    starts: num(v.starts, "BENCH_STARTS", 3),
    serialTurns: num(v["serial-turns"], "BENCH_SERIAL_TURNS", 200),
    reconnectMs: num(v["reconnect-seconds"], "BENCH_RECONNECT_S", 95) * 1000,
    driverNice: Math.max(-20, Math.min(19, Math.round(num(v["driver-nice"], "BENCH_DRIVER_NICE", 5)))),
  };
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

async function readyDaemon(w: DiscordWorld, label: string, cleanup: Cleanup): Promise<{ d: BenchDaemon; readyMs: number }> {
  const d = await spawnDaemon({ label, configYaml: discordConfigYaml(w), env: discordEnv(w) }, cleanup);
  await pollUntil(d, () => checkReady(d, "discord"), "discord ready in /readyz", 60_000, 5);
  const readyMs = performance.now() - d.spawnedAt;
  // The daemon takes signals once its whole start is done (the dispatch of replayed events follows the adapters).
  await pollUntil(d, async () => logRecords(d).some((r) => r.msg === "hermes-gateway ready"), "hermes-gateway ready", 60_000, 20);
  return { d, readyMs };
}

async function startSection(w: DiscordWorld, runs: number, cleanup: Cleanup): Promise<Row[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { d, readyMs } = await readyDaemon(w, `start${i}`, cleanup);
    times.push(readyMs);
    await stopChecked(d, `start run ${i + 1}`);
    log(`start run ${i + 1}/${runs}: discord ready ${readyMs.toFixed(0)} ms`);
  }
  const p = percentiles(times);
  return [{ figure: `spawn → Discord ready in /readyz (${runs} runs): median / max`, measured: `${ms(p.p50)} / ${ms(p.max)}` }];
}

async function overheadRows(w: DiscordWorld, d: BenchDaemon, turns: number): Promise<Row[]> {
  const u = w.users[0] as (typeof w.users)[number];
  const dm = dmOf(w, u);
  for (let i = 0; i < 20; i++) await discordTurn(w, u, dm, `tokwarm-0-${i}`);
  await scrape(d);
  const cpu0 = cpuSample(d.pid);
  const timings: DiscordTurn[] = [];
  for (let i = 0; i < turns; i++) timings.push(await discordTurn(w, u, dm, `tokserial-0-${i}`));
  const loop = await scrape(d);
  const cpu = cpuDelta(cpu0, cpuSample(d.pid));
  trimDiscordRecords(w);
  const reply = percentiles(timings.map((t) => t.replyMs));
  const llm = percentiles(timings.map((t) => t.llmMs));
  log(`overhead: ${turns} serial turns`);
  return [
    {
      figure: `warm turn, 1 chat: message posted → reply POST p50 / p99 (${reply.n} turns)`,
      measured: `${ms(reply.p50)} / ${ms(reply.p99)}`,
      target: "p50 ≤ 15 ms",
      ok: reply.p50 <= 15,
    },
    { figure: "  of it: posted → model request at the fake LLM, p50", measured: ms(llm.p50) },
    { figure: "  event-loop delay p99 / max over the level", measured: `${ms(loop.loopP99Ms)} / ${ms(loop.loopMaxMs)}` },
    {
      figure: "  daemon main thread: on a CPU / runnable but waiting for one",
      measured: `${(cpu.mainMs / 1000).toFixed(2)} s / ${(cpu.mainWaitMs / 1000).toFixed(2)} s`,
    },
  ];
}

async function burstRows(w: DiscordWorld, d: BenchDaemon): Promise<Row[]> {
  await scrape(d);
  const t0 = performance.now();
  const turns = w.channels
    .slice(0, BURST_CHANNELS)
    .flatMap((ch, c) =>
      Array.from({ length: BURST_PER_CHANNEL }, (_, i) => discordTurn(w, w.users[c + 1] as (typeof w.users)[number], ch, `tokburst-${c}-${i}`, 120_000)),
    );
  const done = await Promise.allSettled(turns);
  const wallMs = performance.now() - t0;
  await sleep(3000);
  const loop = await scrape(d);
  const counts = repliesPerToken(w, w.channels);
  const answered = [...counts.values()].filter((n) => n >= 1).length;
  const twice = [...counts.values()].filter((n) => n > 1).length;
  const ok = done.filter((r) => r.status === "fulfilled").length;
  const total = BURST_CHANNELS * BURST_PER_CHANNEL;
  trimDiscordRecords(w);
  log(`burst: ${ok}/${total} replies in ${(wallMs / 1000).toFixed(1)} s`);
  return [
    {
      figure: `burst ${BURST_CHANNELS} channels × ${BURST_PER_CHANNEL} messages: answered / answered twice`,
      measured: `${answered}/${total} / ${twice}`,
      target: `${total}/${total} / 0`,
      ok: answered === total && twice === 0,
    },
    { figure: "  all answered after", measured: `${(wallMs / 1000).toFixed(2)} s` },
    { figure: "  RSS 3 s after the burst; event-loop max over it", measured: `${mib(loop.rssBytes)}; ${ms(loop.loopMaxMs)}` },
  ];
}

async function reconnectRows(w: DiscordWorld, d: BenchDaemon, durationMs: number): Promise<Row[]> {
  await scrape(d);
  const cpu0 = cpuSample(d.pid);
  const deadline = performance.now() + durationMs;
  const turns: Array<Promise<DiscordTurn>> = [];
  const chats = w.users.slice(1, 1 + RECONNECT_CHATS).map(async (u, c) => {
    const dm = dmOf(w, u);
    for (let i = 0; performance.now() < deadline; i++) {
      const turn = discordTurn(w, u, dm, `tokrc-${c}-${i}`, 60_000);
      turns.push(turn);
      await turn.catch(() => undefined);
      await sleep(1000 + Math.random() * 2000);
    }
  });
  let reconnects = 0;
  const forcer = (async () => {
    for (let next = performance.now() + RECONNECT_EVERY_MS; next < deadline; next += RECONNECT_EVERY_MS) {
      await sleep(next - performance.now());
      w.discord.gateway.requestReconnect();
      reconnects++;
    }
  })();
  await Promise.all([...chats, forcer]);
  const settled = await Promise.allSettled(turns);
  const loop = await scrape(d);
  const cpu = cpuDelta(cpu0, cpuSample(d.pid));
  const counts = repliesPerToken(
    w,
    w.users.slice(1, 1 + RECONNECT_CHATS).map((u) => dmOf(w, u)),
  );
  const twice = [...counts.values()].filter((n) => n > 1).length;
  const lost = settled.filter((r) => r.status === "rejected").length;
  trimDiscordRecords(w);
  log(`reconnects: ${settled.length} turns, ${reconnects} forced reconnects`);
  return [
    {
      figure: `${RECONNECT_CHATS} chats (think 1–3 s) for ${Math.round(durationMs / 1000)} s, RECONNECT every 30 s (${reconnects} forced): event-loop max`,
      measured: ms(loop.loopMaxMs),
      target: "≤ 20 ms",
      ok: loop.loopMaxMs <= 20,
    },
    {
      figure: "  daemon main thread: on a CPU / runnable but waiting for one",
      measured: `${(cpu.mainMs / 1000).toFixed(2)} s / ${(cpu.mainWaitMs / 1000).toFixed(2)} s`,
    },
    {
      figure: "  turns answered / lost / answered twice; sockets open at the end",
      measured: `${settled.length - lost} / ${lost} / ${twice}; ${w.discord.gateway.openSockets()}`,
      target: "lost 0, twice 0, 1 socket",
      ok: lost === 0 && twice === 0 && w.discord.gateway.openSockets() === 1,
    },
  ];
}

async function main(): Promise<number> {
  const o = options();
  const session = await driverSession(o.driverNice);
  if (session.kind === "exited") return session.code;
  const cpu = cpus()[0]?.model ?? "unknown cpu";
  console.log(`hermes-gateway Discord benchmark — daemon: node ${cliArgs().args.join(" ")}`);
  console.log(
    `machine: ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; load average at start ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log(session.note);
  const cleanup = new Cleanup();
  try {
    const w = await startDiscordWorld(cleanup, { users: 1 + Math.max(BURST_CHANNELS, RECONNECT_CHATS), channels: BURST_CHANNELS });
    const rows: Row[] = [...(await startSection(w, o.starts, cleanup))];
    const { d } = await readyDaemon(w, "load", cleanup);
    rows.push(...(await overheadRows(w, d, o.serialTurns)));
    rows.push(...(await burstRows(w, d)));
    rows.push(...(await reconnectRows(w, d, o.reconnectMs)));
    await stopChecked(d, "load");
    printTable("Discord daemon", rows);
    return rows.some((r) => r.ok === false) ? 1 : 0;
  } finally {
    for (const f of await cleanup.run()) process.stderr.write(`cleanup failed: ${f}\n`);
  }
}

process.exitCode = await main();
