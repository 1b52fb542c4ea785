/**
 * The gateway under test in runtime.bench.ts: fastify + the API adapter + the
 * runtime + the real agent loop with an instant model + the real SQLite
 * store (a temp file, or ":memory:").
 */
import { join } from "node:path";
import Fastify from "fastify";
import { pino } from "pino";
import { stringify } from "yaml";
import { ApiAdapter } from "../adapters/api/index.js";
import { ToolRegistry } from "../agent/index.js";
import { type ProviderEvent, type StreamFn, ZERO_USAGE } from "../agent/types.js";
import { buildConfig } from "../config/index.js";
import { createAgentRunner } from "../gateway/agent-turn/runner.js";
import { createRuntime, type RuntimeStats } from "../gateway/runtime/index.js";
import { openRuntimeStore } from "../gateway/wiring/runtime-store.js";

/** A model that answers at once, without tools. */
const instantModel: StreamFn = async function* (): AsyncGenerator<ProviderEvent> {
  yield { type: "start" };
  yield { type: "done", message: { role: "assistant", content: "ok", finish_reason: "stop" }, usage: { ...ZERO_USAGE, input_tokens: 10, output_tokens: 1 } };
};

export interface BenchGateway {
  readonly url: string;
  /** Server-side time per completion request (request received → response finished), ms; drained by each call. */
  takeServerLatencies(): number[];
  stats(): RuntimeStats;
  close(): Promise<void>;
}

export async function startBenchGateway(o: { home: string; key: string; storeKind: string }): Promise<BenchGateway> {
  const config = buildConfig({
    yamlText: stringify({
      gateway: { max_concurrent_turns: 64, busy_input_mode: "queue", platforms: { api: { key: o.key } } },
      agent: { tool_progress: "off" },
    }),
    file: null,
    env: {},
    home: o.home,
  });
  const logger = pino({ level: "silent" });
  const cacheKiB = Number(process.env.HGW_BENCH_SQLITE_CACHE_KIB ?? "") || undefined;
  const mmap = process.env.HGW_BENCH_SQLITE_MMAP_BYTES === undefined ? undefined : Number(process.env.HGW_BENCH_SQLITE_MMAP_BYTES);
  const opened = openRuntimeStore(o.storeKind === "memory" ? ":memory:" : join(o.home, "state.db"), {
    ...(cacheKiB ? { cacheSizeKiB: cacheKiB } : {}),
    ...(mmap !== undefined ? { mmapSizeBytes: mmap } : {}),
  });
  const registry = new ToolRegistry();
  const runner = createAgentRunner({ config, stream: instantModel, tools: (ts) => registry.view(ts) });
  const adapter = new ApiAdapter({ config: config.gateway.platforms.api, logger });
  const runtime = createRuntime({ config, logger, store: opened.store, runner, adapters: new Map([["api", adapter]]) });
  const app = Fastify();
  const server: number[] = [];
  app.addHook("onRequest", async (req) => {
    (req as unknown as { t0: number }).t0 = performance.now();
  });
  app.addHook("onResponse", async (req) => {
    server.push(performance.now() - (req as unknown as { t0: number }).t0);
  });
  adapter.registerRoutes(app);
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  await adapter.start(runtime.sink);
  await runtime.start();
  return {
    url,
    takeServerLatencies: () => server.splice(0).sort((a, b) => a - b),
    stats: () => runtime.stats(),
    async close() {
      await runtime.stop("shutdown");
      await adapter.stop();
      await app.close();
      opened.close();
    },
  };
}
