/**
 * The whole daemon, BUILT (`node dist/gateway/cli.js run`; tsx over the
 * sources only if dist/ is missing), as a child process between the fake
 * Slack (Socket Mode and Web API, driven by the real bolt app and Web API
 * client inside the daemon) and an instant fake LLM. Reports:
 *   start      spawn → /healthz 200 and → Slack connected per /readyz;
 *   overhead   a DM event pushed on the socket → the fake receiving the
 *              chat.postMessage that answers it, one turn at a time after a
 *              warm-up (the model answers at once, so this is the daemon's own
 *              time), with the ack and model-request marks on the way;
 *   burst      20 channels × 5 mentions pushed at once, answered 100/100,
 *              duplicates counted, at Slack's default pace (1 message/s per channel);
 *   memory     RSS after the burst and once the daemon's idle GC has run;
 *   refresh    20 forced Socket Mode refreshes, then the sockets open on the
 *              fake's side (must be 1).
 *
 *   npm run build && node --import tsx bench/daemon-slack.bench.ts [--turns=N] [--starts=N]
 *   (or: npm run bench -- daemon-slack)
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { type FakeLlmServer, startFakeLlmServer } from "../test/fakes/llm-server.js";
import { FakeSlackApi } from "../test/fakes/slack-api.js";
import { mentionBot, messageEvent } from "../test/fakes/slack-events.js";
import { ALICE } from "../test/fakes/slack-state.js";
import { type BenchDaemon, Cleanup, checkReady, cliArgs, healthy, pollUntil, scrape, spawnDaemon } from "./daemon-harness.js";
import { type Percentiles, percentiles, sleep } from "./daemon-load.js";
import { memoryPoint } from "./daemon-memory.js";
import { printTable } from "./daemon-report.js";
import { instantModel } from "./daemon-world.js";
import { driverSession } from "./driver-session.js";
import type { Row } from "./report-row.js";

interface World {
  readonly slack: FakeSlackApi;
  readonly llm: FakeLlmServer;
  readonly llmMarks: Map<string, number>;
}

async function startWorld(cleanup: Cleanup): Promise<World> {
  const slack = new FakeSlackApi();
  await slack.start();
  cleanup.add("close the fake Slack", () => slack.close());
  const llm = await startFakeLlmServer();
  cleanup.add("close the fake LLM", () => llm.close());
  const llmMarks = new Map<string, number>();
  llm.respondWith(instantModel(llmMarks));
  return { slack, llm, llmMarks };
}

async function slackDaemon(w: World, label: string, cleanup: Cleanup, slack: Record<string, unknown> = {}): Promise<BenchDaemon> {
  const configYaml = stringify({
    model: { provider: "custom", base_url: w.llm.openaiBaseUrl, model: "fake-model", request_timeout_s: 30 },
    gateway: { drain_timeout_s: 2, idle_gc_after_s: 5, platforms: { slack } },
  });
  const env = { SLACK_BOT_TOKEN: w.slack.botToken, SLACK_APP_TOKEN: w.slack.appToken, SLACK_API_URL: w.slack.apiUrl, SLACK_ALLOWED_USERS: ALICE.id };
  const d = await spawnDaemon({ label, configYaml, env }, cleanup);
  await pollUntil(d, () => checkReady(d, "slack"), "slack ready in /readyz", 60_000, 5);
  return d;
}

const log = (line: string): void => void process.stderr.write(`  · ${line}\n`);
const ms = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : "–");
const pct = (p: Percentiles): string => `median ${ms(p.p50)}, p99 ${ms(p.p99)}, max ${ms(p.max)} (n ${p.n})`;
const mib = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;

async function startSection(runs: number, cleanup: Cleanup): Promise<Row[]> {
  const w = await startWorld(cleanup);
  const health: number[] = [];
  const ready: number[] = [];
  for (let i = 0; i < runs; i++) {
    const d = await spawnDaemon(
      {
        label: `slack-start${i}`,
        configYaml: stringify({ model: { provider: "custom", base_url: w.llm.openaiBaseUrl, model: "fake-model" } }),
        env: { SLACK_BOT_TOKEN: w.slack.botToken, SLACK_APP_TOKEN: w.slack.appToken, SLACK_API_URL: w.slack.apiUrl },
      },
      cleanup,
    );
    await pollUntil(d, () => healthy(d), "/healthz 200");
    health.push(performance.now() - d.spawnedAt);
    await pollUntil(d, () => checkReady(d, "slack"), "slack ready", 60_000);
    ready.push(performance.now() - d.spawnedAt);
    const { code } = await d.stop();
    if (code !== 0) throw new Error(`start run ${i + 1}: the daemon exited with ${code}`);
    log(`start ${i + 1}/${runs}: /healthz ${ms(health.at(-1) ?? NaN)}, slack ready ${ms(ready.at(-1) ?? NaN)}`);
  }
  return [
    { figure: "spawn → /healthz 200", measured: pct(percentiles(health)) },
    { figure: "spawn → Slack connected (/readyz)", measured: pct(percentiles(ready)) },
  ];
}

/**
 * One DM turn: the event pushed on the socket → the chat.postMessage carrying its token (times from the push).
 * With `threadTs` the message goes into that DM thread, so every turn continues one session (a warm turn).
 */
async function oneTurn(w: World, seq: number, threadTs?: string): Promise<{ ack: number; llm: number; reply: number; ts: string }> {
  const token = `tokslack-1-${seq}`;
  const m = w.slack.state.addUserMessage("D0BENCH", ALICE, token, threadTs);
  const mine = new RegExp(`${token}(?!\\d)`);
  let repliedAt = 0;
  const reply = w.slack.waitFor((c) => {
    if (c.method !== "chat.postMessage" || !mine.test(String(c.params.text ?? ""))) return false;
    repliedAt ||= performance.now();
    return true;
  }, 10_000);
  const pushedAt = performance.now();
  const env = w.slack.socket.pushEvent(messageEvent(m));
  const ackedAt = w.slack.socket.until(() => Boolean(w.slack.socket.acked(env.envelope_id)), "the ack", 10_000).then(() => performance.now());
  await reply;
  const ack = (await ackedAt) - pushedAt;
  const llmAt = w.llmMarks.get(token) ?? NaN;
  w.llmMarks.delete(token);
  return { ack, llm: llmAt - pushedAt, reply: repliedAt - pushedAt, ts: m.ts };
}

async function overheadSection(turns: number, cleanup: Cleanup): Promise<Row[]> {
  const w = await startWorld(cleanup);
  const d = await slackDaemon(w, "slack-overhead", cleanup, { rate_limits: { per_channel_per_s: 10_000, global_per_s: 100_000 } });
  // Warm-up: JIT, caches, and the session all timed turns continue (one DM thread).
  const thread = (await oneTurn(w, 0)).ts;
  for (let i = 1; i < 20; i++) await oneTurn(w, i, thread);
  await scrape(d);
  const acks: number[] = [];
  const llms: number[] = [];
  const replies: number[] = [];
  for (let i = 0; i < turns; i++) {
    const t = await oneTurn(w, 1000 + i, thread);
    acks.push(t.ack);
    llms.push(t.llm);
    replies.push(t.reply);
    if (i % 50 === 0) w.slack.calls.splice(0, w.slack.calls.length);
  }
  const s = await scrape(d);
  log(`overhead: ${turns} turns, reply median ${ms(percentiles(replies).p50)}`);
  await d.stop();
  return [
    { figure: "event pushed → envelope acked (committed)", measured: pct(percentiles(acks)) },
    { figure: "event pushed → model request", measured: pct(percentiles(llms)) },
    { figure: "event pushed → reply posted", measured: pct(percentiles(replies)), target: "median ≤ 15 ms", ok: percentiles(replies).p50 <= 15 },
    { figure: "event-loop delay over the turns", measured: `p50 ${ms(s.loopP50Ms)}, p99 ${ms(s.loopP99Ms)}, max ${ms(s.loopMaxMs)}` },
  ];
}

async function burstSection(cleanup: Cleanup): Promise<Row[]> {
  const w = await startWorld(cleanup);
  const d = await slackDaemon(w, "slack-burst", cleanup);
  const tokens: string[] = [];
  const started = performance.now();
  for (let c = 0; c < 20; c++) {
    for (let k = 0; k < 5; k++) {
      const token = `tokburst-${c}-${k}`;
      tokens.push(token);
      w.slack.socket.pushEvent(messageEvent(w.slack.state.addUserMessage(`C0BURST${String(c).padStart(2, "0")}`, ALICE, mentionBot(token))));
    }
  }
  const answered = (t: string) => w.slack.callsTo("chat.postMessage").filter((c) => new RegExp(`${t}(?!\\d)`).test(String(c.params.text ?? ""))).length;
  const deadline = performance.now() + 120_000;
  while (tokens.some((t) => answered(t) === 0) && performance.now() < deadline) await sleep(50);
  const wallMs = performance.now() - started;
  await sleep(3000); // anything sent twice would show by now
  const counts = tokens.map(answered);
  const settled = await scrape(d);
  const mem = await memoryPoint(d, 100, settled, 20_000);
  log(`burst: ${counts.filter((n) => n > 0).length}/100 answered in ${ms(wallMs)}`);
  const refresh = await refreshSection(w);
  await d.stop();
  return [
    {
      figure: "burst 20 channels × 5: answered (1 message/s per channel)",
      measured: `${counts.filter((n) => n > 0).length}/100 in ${(wallMs / 1000).toFixed(2)} s`,
      target: "100/100",
      ok: counts.every((n) => n > 0),
    },
    { figure: "burst: replies posted more than once", measured: String(counts.filter((n) => n > 1).length), target: "0", ok: counts.every((n) => n <= 1) },
    {
      figure: "RSS after the burst (busy → idle GC)",
      measured: `${mib(mem.busy.rssBytes)} → ${mib(mem.idle.rssBytes)} (heap used ${mib(mem.idle.heapUsedBytes)})`,
    },
    ...refresh,
  ];
}

async function refreshSection(w: World): Promise<Row[]> {
  const before = w.slack.socket.connections;
  const started = performance.now();
  for (let i = 1; i <= 20; i++) {
    w.slack.socket.requestReconnect("refresh_requested");
    await w.slack.socket.until(() => w.slack.socket.connections === before + i, `refresh ${i}`, 30_000);
  }
  const wallMs = performance.now() - started;
  await w.slack.socket.until(() => w.slack.socket.openSockets() === 1, "one socket", 10_000).catch(() => undefined);
  await sleep(1000);
  const open = w.slack.socket.openSockets();
  const m = w.slack.state.addUserMessage("D0BENCH", ALICE, "tokafter-1-1");
  w.slack.socket.pushEvent(messageEvent(m));
  const answered = await w.slack
    .waitFor((c) => c.method === "chat.postMessage" && String(c.params.text).includes("tokafter-1-1"), 10_000)
    .then(
      () => "yes",
      () => "NO",
    );
  return [
    {
      figure: "20 forced refreshes: sockets open after",
      measured: `${open} (${w.slack.socket.connections - before} new connections, ${(wallMs / 20).toFixed(0)} ms per refresh)`,
      target: "1",
      ok: open === 1,
    },
    { figure: "a message after the refreshes answered", measured: answered, target: "yes", ok: answered === "yes" },
  ];
}

async function main(): Promise<void> {
  const { values: v } = parseArgs({ options: { turns: { type: "string" }, starts: { type: "string" } } });
  const turns = Number(v.turns ?? process.env.BENCH_TURNS ?? 300);
  const starts = Number(v.starts ?? process.env.BENCH_STARTS ?? 3);
  const session = await driverSession(Number(process.env.BENCH_DRIVER_NICE ?? 5));
  if (session.kind === "exited") process.exit(session.code);
  const cli = cliArgs();
  console.log(`hermes-gateway Slack daemon benchmark — daemon: node ${cli.args.join(" ")} (${cli.kind})`);
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown cpu"}, Node ${process.version}; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log(`settings: ${turns} timed turns, ${starts} start runs; ${session.note}`);
  const cleanup = new Cleanup();
  try {
    printTable("start", await startSection(starts, cleanup));
    printTable("warm turn overhead (instant model, Socket Mode, one DM thread)", await overheadSection(turns, cleanup));
    printTable("burst, memory, refreshes", await burstSection(cleanup));
  } finally {
    const failed = await cleanup.run();
    for (const f of failed) console.error(`cleanup failed: ${f}`);
  }
}

await main();
