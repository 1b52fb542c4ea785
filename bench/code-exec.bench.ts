/**
 * Programmatic tool calling versus plain tool calls, for a task that needs
 * 10 file reads and 3 web searches: model round trips, wall time and how much
 * text the model is sent. The agent loop, the provider stack (HTTP to the fake
 * LLM server), the tools (read_file on real files, web_search against the fake
 * DuckDuckGo) and execute_code (a real interpreter, the real socket) are the
 * product's; only the model is scripted, with a fixed latency per call to
 * stand in for inference time.
 *
 *   node --import tsx bench/code-exec.bench.ts [latencyMs…]     (default: 0 400)
 *
 * Modes: `sequential` (one tool call per model response, as a model that
 * decides step by step), `batched` (all 13 calls in one response: the best
 * case without scripts, when every path and query is known up front) and
 * `execute_code` (one script does all 13 calls and prints a digest), in
 * Python when it runs here and in JavaScript.
 */

import { setMaxListeners } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { pino } from "pino";
import { IterationBudget, loopOptionsFromConfig, runAgentLoop } from "../agent/index.js";
import { createStreamFn } from "../agent/providers/index.js";
import type { ToolContext } from "../agent/types.js";
import { systemClock } from "../config/timing/index.js";
import { topLevelRun } from "../gateway/agent-turn/agent-run.js";
import { createToolSystem } from "../gateway/tools.js";
import { type FakeRequest, type FakeTurn, startFakeLlmServer } from "../test/fakes/llm-server.js";
import { startFakeWeb } from "../test/fakes/web-server.js";
import { testConfig } from "../test/runtime/helpers/harness.js";
import { resolveInterpreter } from "../tools/code-exec/index.js";

type Mode = "sequential" | "batched" | "execute_code";
const LATENCIES = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => Number.isFinite(n));
const FILES = Array.from({ length: 10 }, (_, i) => `src/module${i + 1}.py`);
const QUERIES = ["python asyncio timeouts", "sqlite wal checkpoint", "unix socket permissions"];
const TOOLSETS = ["file", "web", "code_execution"];

const calls = (): { name: string; arguments: Record<string, unknown> }[] => [
  ...FILES.map((path) => ({ name: "read_file", arguments: { path } })),
  ...QUERIES.map((query) => ({ name: "web_search", arguments: { query, limit: 3 } })),
];

function script(language: "python" | "node"): string {
  if (language === "python") {
    return [
      "from hermes_tools import read_file, web_search",
      `files = ${JSON.stringify(FILES)}`,
      `queries = ${JSON.stringify(QUERIES)}`,
      "for f in files:",
      "    r = read_file(f)",
      '    defs = [l.split("|", 1)[1].strip() for l in r["content"].splitlines() if "def " in l]',
      '    print(f, r["total_lines"], "lines;", ", ".join(defs[:3]))',
      "for q in queries:",
      '    hits = web_search(q, limit=3)["data"]["web"]',
      '    print(q, "->", hits[0]["url"])',
    ].join("\n");
  }
  return [
    'import { read_file, web_search } from "hermes_tools";',
    `const files = ${JSON.stringify(FILES)};`,
    `const queries = ${JSON.stringify(QUERIES)};`,
    "const [reads, searches] = await Promise.all([",
    "  Promise.all(files.map((path) => read_file({ path }))),",
    "  Promise.all(queries.map((query) => web_search({ query, limit: 3 }))),",
    "]);",
    "reads.forEach((r, i) => {",
    '  const defs = r.content.split("\\n").filter((l) => l.includes("def ")).map((l) => l.split("|")[1].trim());',
    '  console.log(files[i], r.total_lines, "lines;", defs.slice(0, 3).join(", "));',
    "});",
    'searches.forEach((s, i) => console.log(queries[i], "->", s.data.web[0].url));',
  ].join("\n");
}

/** The scripted model: what it answers given how many tool results it has seen. */
function model(mode: Mode, language: "python" | "node"): (req: FakeRequest) => FakeTurn {
  return (req) => {
    const seen = (req.body as { messages: { role: string }[] }).messages.filter((m) => m.role === "tool").length;
    const all = calls();
    if (mode === "sequential" && seen < all.length) return { toolCalls: [all[seen]!] };
    if (mode === "batched" && seen === 0) return { toolCalls: all };
    if (mode === "execute_code" && seen === 0) return { toolCalls: [{ name: "execute_code", arguments: { code: script(language) } }] };
    return { text: "Here is the digest of the ten modules and the three searches." };
  };
}

interface Sample {
  readonly wallMs: number;
  readonly modelCalls: number;
  readonly promptChars: number;
  readonly largestPrompt: number;
  readonly budgetUsed: number;
}

async function makeWorkdir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "hgw-bench-code-"));
  await writeFile(join(dir, "README.md"), "bench\n");
  await mkdir(join(dir, "src"));
  for (const [i, f] of FILES.entries()) {
    const body = Array.from({ length: 60 }, (_, n) =>
      n % 12 === 0 ? `def handler_${i}_${n}(request, timeout=30):` : `    value_${n} = compute(${n}, "module ${i}")  # line ${n}`,
    );
    await writeFile(join(dir, f), `${body.join("\n")}\n`);
  }
  return dir;
}

async function main(): Promise<void> {
  const latencies = LATENCIES.length > 0 ? LATENCIES : [0, 400];
  const [llm, web, dir] = await Promise.all([startFakeLlmServer(), startFakeWeb(), makeWorkdir()]);
  const config = testConfig({
    model: { provider: "custom", model: "bench-model", base_url: llm.openaiBaseUrl, api_key: "k", api_mode: "chat_completions" },
    web: { duckduckgo: { url: `${web.url}/ddg/html/` } },
    agent: { budget_warnings: false },
  });
  const providers = createStreamFn(config, { home: dir, logger: pino({ level: "silent" }) });
  const python = await resolveInterpreter({ ...config.code_execution, language: "python" }, process.env);
  const systems = {
    python: createToolSystem(config, { env: process.env }),
    node: createToolSystem({ ...config, code_execution: { ...config.code_execution, language: "node" } }, { env: process.env }),
  };
  const runs: { mode: Mode; language: "python" | "node" }[] = [
    { mode: "sequential", language: "node" },
    { mode: "batched", language: "node" },
    ...(python ? [{ mode: "execute_code" as const, language: "python" as const }] : []),
    { mode: "execute_code", language: "node" },
  ];
  const stateMap = new Map<string, unknown>();
  const context: Omit<ToolContext, "agent"> = {
    taskId: "bench",
    sessionId: "bench",
    sessionKey: "bench",
    platform: "cli",
    userId: null,
    cwd: dir,
    home: dir,
    approver: { request: () => null },
    clarifier: { ask: async () => ({ kind: "unavailable" }) },
    sessions: { search: () => [] },
    clock: systemClock,
    state: { get: <T>(k: string) => stateMap.get(k) as T | undefined, set: <T>(k: string, v: T) => void stateMap.set(k, v) },
    notify: () => undefined,
  };

  const runOnce = async (mode: Mode, language: "python" | "node", latencyMs: number): Promise<Sample> => {
    const script = model(mode, language);
    const view = await systems[language].view(TOOLSETS);
    // Eight parallel tool calls put more than Node's default ten abort listeners on the turn's signal.
    const turn = new AbortController();
    setMaxListeners(64, turn.signal);
    llm.respondWith(async (req) => (latencyMs > 0 && (await delay(latencyMs)), script(req)));
    const before = llm.completions().length;
    const budget = new IterationBudget(config.agent.max_turns);
    const started = performance.now();
    const result = await runAgentLoop(
      {
        system: "You are a benchmark agent.",
        history: [],
        userMessage: "Summarise the ten modules in src/ and look up three related topics.",
        tools: view,
        context: { ...context, agent: topLevelRun({ budget, model: "bench-model", toolsets: TOOLSETS, tools: view, progress: () => undefined }) },
      },
      loopOptionsFromConfig(config, { model: "bench-model", budget }),
      () => undefined,
      turn.signal,
      providers.stream,
    );
    const wallMs = performance.now() - started;
    if (result.stop.kind !== "completed") throw new Error(`${mode}: ${JSON.stringify(result.stop)}`);
    const toolResults = result.messages.filter((m) => m.role === "tool").map((m) => m.content);
    if (mode === "execute_code" && !/"status":"success".*"tool_calls_made":13/.test(toolResults[0] ?? ""))
      throw new Error(`the script failed: ${toolResults[0]}`);
    if (mode !== "execute_code" && toolResults.length !== 13) throw new Error(`${mode}: ${toolResults.length} tool results`);
    const sizes = llm
      .completions()
      .slice(before)
      .map((r) => JSON.stringify(r.body).length);
    return { wallMs, modelCalls: sizes.length, promptChars: sizes.reduce((a, b) => a + b, 0), largestPrompt: Math.max(...sizes), budgetUsed: budget.used };
  };

  process.stdout.write(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; Python ${python?.version ?? "not found"}\n`,
  );
  process.stdout.write("latency  mode                   model calls  budget used  wall median (min–max)       request bytes (sum / largest)\n");
  try {
    for (const r of runs) await runOnce(r.mode, r.language, 0); // warm-up: JIT, connections, interpreter caches
    for (const latencyMs of latencies) {
      for (const { mode, language } of runs) {
        const samples: Sample[] = [];
        for (let i = 0; i < (latencyMs === 0 ? 7 : 3); i++) samples.push(await runOnce(mode, language, latencyMs));
        const walls = samples.map((s) => s.wallMs).sort((a, b) => a - b);
        const s = samples[0]!;
        const label = mode === "execute_code" ? `execute_code (${language})` : mode;
        const line = `${String(latencyMs).padStart(5)} ms  ${label.padEnd(21)}  ${String(s.modelCalls).padStart(11)}  ${String(s.budgetUsed).padStart(11)}  ${walls[Math.floor(walls.length / 2)]!.toFixed(0).padStart(7)} ms (${walls[0]!.toFixed(0)}–${walls.at(-1)!.toFixed(0)})`;
        process.stdout.write(`${line.padEnd(85)}${String(s.promptChars).padStart(8)} / ${s.largestPrompt}\n`);
      }
    }
  } finally {
    await Promise.all([systems.python.shutdown(), systems.node.shutdown()]);
    await providers.close();
    await Promise.all([llm.close(), web.close(), rm(dir, { recursive: true, force: true })]);
  }
}

await main();
