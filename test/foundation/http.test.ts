import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, type ReadinessCheck } from "../../gateway/http.js";
import { createMetrics, type Metrics } from "../../gateway/metrics.js";
import { answerBeforeBody } from "../fakes/early-answer.js";

let metrics: Metrics;
afterEach(() => metrics?.close());

function server(checks: ReadinessCheck[]) {
  metrics = createMetrics();
  return createHttpServer({ logger: pino({ level: "silent" }), metrics, version: "1.2.3", readiness: () => checks });
}

describe("http endpoints", () => {
  it("healthz answers while alive, with the version", async () => {
    const app = server([]);
    const res = await app.inject({ method: "GET", url: "/healthz" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok", version: "1.2.3" });
    await app.close();
  });

  it("readyz is 503 and names every component that is not ready", async () => {
    const app = server([
      { name: "store", ready: true },
      { name: "telegram", ready: false, detail: "409 conflict: another instance is polling" },
      { name: "mcp:github", ready: false, detail: "connecting" },
    ]);
    const res = await app.inject({ method: "GET", url: "/readyz" });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: "not_ready", not_ready: ["telegram", "mcp:github"] });
    expect(res.json().checks[1].detail).toContain("409");
    await app.close();
  });

  it("metrics are Prometheus text with counters that move", async () => {
    const app = server([]);
    metrics.inbound.inc({ platform: "telegram" }, 3);
    metrics.turns.inc({ platform: "telegram", outcome: "completed" });
    const res = await app.inject({ method: "GET", url: "/metrics" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/plain");
    expect(res.body).toContain('hermes_inbound_messages_total{platform="telegram"} 3');
    expect(res.body).toContain('hermes_turns_total{platform="telegram",outcome="completed"} 1');
    expect(res.body).toMatch(/^hermes_nodejs_eventloop_lag_p99_seconds [\d.e-]+$/m);
    expect(res.body).not.toContain("hermes_event_loop_delay_ms");
    expect(res.body).toContain("hermes_process_resident_memory_bytes");
    expect(res.body).toContain("hermes_nodejs_heap_size_used_bytes");
    await app.close();
  });

  it("probes and scrapes take no body: one that comes is refused before it is read", async () => {
    const app = server([]);
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      for (const path of ["/healthz", "/readyz", "/metrics"]) {
        const r = await answerBeforeBody(`${url}${path}`, { method: "GET" });
        expect(r, path).toMatchObject({ status: 413, closedByServer: true });
      }
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it("unknown routes are 404", async () => {
    const app = server([]);
    expect((await app.inject({ method: "GET", url: "/nope" })).statusCode).toBe(404);
    await app.close();
  });
});
