/**
 * The API in front of a store whose disk fills up mid-turn, end to end in one
 * process: the real openai SDK, the daemon's HTTP server and readiness, the
 * runtime and real SQLite. The disk "fills" when the store's connection is
 * capped at its current size (`PRAGMA max_page_count`: SQLITE_FULL, exactly as
 * on a full disk) and space "returns" when the cap is raised.
 */
import OpenAI from "openai";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ApiAdapter } from "../../adapters/api/index.js";
import { createHttpServer, storeReadiness } from "../../gateway/http.js";
import { createMetrics } from "../../gateway/metrics.js";
import { createRuntime } from "../../gateway/runtime/index.js";
import { openDatabase, type StoreDb, storeOver } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";
import { tempDir } from "../store/helpers.js";
import { testConfig } from "./helpers/harness.js";
import { completed, inputText, ScriptedRunner } from "./helpers/scripted-runner.js";

const KEY = "sk-full-disk-test-key";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start() {
  const dir = tempDir();
  const logger = pino({ level: "silent" });
  const sdb: StoreDb = openDatabase(dir.file, { logger });
  const store = storeOver(sdb);
  const disk = {
    fill: () => sdb.db.pragma(`max_page_count = ${sdb.db.pragma("page_count", { simple: true }) as number}`),
    free: () => sdb.db.pragma("max_page_count = 1000000"),
  };
  // "fill the disk" fills it while the turn runs, after its message was committed; its reply then needs new pages.
  const runner = new ScriptedRunner(async (req) => {
    if (inputText(req) !== "fill the disk") return completed(req, `echo: ${inputText(req)} (history ${req.history.length})`);
    disk.fill();
    return completed(req, "z".repeat(200_000));
  });
  const config = testConfig({ gateway: { platforms: { api: { key: KEY, request_timeout_s: 600 } } } });
  const adapter = new ApiAdapter({ config: config.gateway.platforms.api, logger });
  const runtime = createRuntime({ config, logger, store: runtimeStoreOver(store), runner, adapters: new Map([["api", adapter]]) });
  const metrics = createMetrics();
  const http = createHttpServer({ logger, metrics, version: "0.0.0", readiness: () => [storeReadiness(store)] });
  adapter.registerRoutes(http);
  const url = await http.listen({ host: "127.0.0.1", port: 0 });
  await adapter.start(runtime.sink);
  await runtime.start();
  cleanups.push(async () => {
    await runtime.stop("shutdown");
    await adapter.stop();
    await http.close();
    metrics.close();
    store.close();
    dir.cleanup();
  });
  const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
  const ask = async (text: string) =>
    (await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: text }] })).choices[0]?.message.content;
  const readyz = async () => {
    const res = await fetch(`${url}/readyz`);
    return { status: res.status, body: (await res.json()) as { checks: { name: string; ready: boolean; detail?: string }[] } };
  };
  return { ask, readyz, disk };
}

describe("a full disk under the API", () => {
  it("fails the turn it cuts off and later requests at once with HGW_ERR_STORE_FULL, turns /readyz not ready, loses nothing committed, and recovers by itself", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    cleanups.push(() => void process.off("unhandledRejection", onUnhandled));
    const api = await start();
    expect(await api.ask("one")).toBe("echo: one (history 0)");
    expect(await api.ask("two")).toBe("echo: two (history 2)");
    expect((await api.readyz()).status).toBe(200);

    // The turn the disk fills under answers its request with the reason, instead of leaving it to the request timeout.
    expect(await api.ask("fill the disk")).toMatch(/could not finish this turn: the disk is full \(HGW_ERR_STORE_FULL\)/);
    // New requests are refused before anything is written.
    await expect(api.ask("three")).rejects.toMatchObject({ status: 503, code: "HGW_ERR_STORE_FULL" });
    const notReady = await api.readyz();
    expect(notReady.status).toBe(503);
    expect(notReady.body.checks).toEqual([
      { name: "store", ready: false, detail: expect.stringMatching(/^HGW_ERR_STORE_FULL: out of space since .*database or disk is full/) },
    ]);

    api.disk.free();
    expect((await api.readyz()).status).toBe(200);
    // The two exchanges committed before the disk filled are all there; the cut-off turn left nothing half-written.
    expect(await api.ask("four")).toBe("echo: four (history 4)");
    expect(unhandled).toEqual([]);
  });
});
