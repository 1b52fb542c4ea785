/**
 * Misbehaving MCP servers: one that hangs on initialize, one that crashes in
 * the middle of a call, one that writes garbage to stdout, one that floods
 * stderr, and one that ignores SIGTERM. Each is failed (or contained) and
 * retried on its own, the others keep working, and nothing outlives shutdown.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { descendants, fakeServer, type LogLine, serverConfig, TestManagers, waitFor } from "./helpers.js";

const managers = new TestManagers();
const build = managers.build.bind(managers);

afterEach(async () => {
  await managers.shutDown();
  expect(await descendants()).toEqual([]);
});

describe("misbehaving MCP servers", () => {
  it("fails a server that hangs on initialize after its connect timeout, while another works and the main thread stays responsive", async () => {
    const { sink, lines, manager, status } = build(
      { hang: fakeServer("hang", { connect_timeout_s: 0.5 }), normal: fakeServer("normal") },
      { retry_initial_s: 30 },
    );
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = Date.now();
    manager.start();
    await waitFor(() => status("normal")?.state === "ready", 15_000, "the normal server");
    expect(await sink.run("mcp__normal__add", { a: 1, b: 1 })).toEqual({ success: true, result: "2" });
    await manager.whenDiscovered();
    delay.disable();
    const elapsed = Date.now() - t0;
    const hang = status("hang");
    expect(hang).toMatchObject({ state: "failed", toolCount: 0, failures: 1 });
    expect(hang?.error).toContain("within 0.5 s");
    expect(hang?.nextRetryAt).toBeGreaterThan(Date.now());
    expect(elapsed).toBeGreaterThanOrEqual(500);
    const logged = lines.find((l: LogLine) => l.level === 50 && l.msg.startsWith('MCP server "hang" failed'));
    expect(logged?.msg).toContain("no answer to initialize");
    expect(logged?.msg).toMatch(/retrying in \d+ s/);
    expect(logged?.["code"]).toBe("HGW_ERR_MCP_CONNECT");
    const p99 = delay.percentile(99) / 1e6;
    const max = delay.max / 1e6;
    console.log(`event-loop delay while a server hung (resolution 10 ms): p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
    expect(max).toBeLessThan(200);
  });

  it("bounds the whole discovery by mcp.discovery_timeout_s", async () => {
    const { manager, status } = build({ hang: fakeServer("hang", { connect_timeout_s: 30 }) }, { discovery_timeout_s: 1, retry_initial_s: 30 });
    const t0 = Date.now();
    manager.start();
    await manager.whenDiscovered();
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(8_000);
    expect(status("hang")).toMatchObject({ state: "failed", error: "discovery did not finish within 1 s" });
    expect(status("hang")?.nextRetryAt).not.toBeNull();
  });

  it("resolves a call whose server crashes mid-call with an error result, then restarts the server", async () => {
    const { sink, lines, manager, status } = build({ crash: fakeServer("crash") });
    manager.start();
    await manager.whenDiscovered();
    const firstPid = status("crash")?.pid;
    expect(firstPid).toBeGreaterThan(0);
    const out = await sink.run("mcp__crash__crash");
    expect(out["success"]).toBe(false);
    expect(String(out["error"])).toContain("closed the connection");
    const failure = await waitFor(() => lines.find((l) => l.msg.startsWith('MCP server "crash" failed: connection lost')), 5_000, "the failure log line");
    expect(failure["code"]).toBe("HGW_ERR_MCP_LOST");
    // Tools stay registered while it restarts; calls in between get a readable error.
    expect(sink.tools.has("mcp__crash__add")).toBe(true);
    await waitFor(() => status("crash")?.state === "ready" && status("crash")?.pid !== firstPid, 15_000, "the restarted server");
    expect(status("crash")?.failures).toBe(0);
    expect(await sink.run("mcp__crash__add", { a: 20, b: 22 })).toEqual({ success: true, result: "42" });
  });

  /** The retry delays of `server`'s failure log lines, in order. */
  const retryDelays = (lines: readonly LogLine[], server: string): number[] =>
    lines.filter((l) => l.msg.startsWith(`MCP server "${server}" failed`)).map((l) => Number(l["retryInMs"]));

  it("backs off a server that crashes soon after every start, though each start succeeded", async () => {
    const { lines, manager } = build(
      { looping: fakeServer("crash", { env: { FAKE_CRASH_AFTER_MS: "150" } }) },
      { retry_initial_s: 0.1, retry_max_s: 5, max_retries: 2 },
    );
    manager.start();
    await waitFor(() => retryDelays(lines, "looping").length >= 4, 20_000, "four failures");
    const delays = retryDelays(lines, "looping").slice(0, 4);
    // 0.1, 0.2, 0.4, 0.8 s, each ±20 %: every delay is longer than the one before.
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThan(delays[i - 1] ?? Infinity);
    expect(delays[3]).toBeGreaterThanOrEqual(640);
    // Each start succeeded, so the failures in a row never reach max_retries: it is never given up.
    const failures = lines.filter((l) => l.msg.startsWith('MCP server "looping" failed')).map((l) => l["failures"]);
    expect(failures.slice(0, 4)).toEqual([1, 1, 1, 1]);
  });

  it("starts the backoff over for a server that stayed ready for retry_max_s before it crashed", async () => {
    const { lines, manager } = build({ steady: fakeServer("crash", { env: { FAKE_CRASH_AFTER_MS: "800" } }) }, { retry_initial_s: 0.1, retry_max_s: 0.3 });
    manager.start();
    await waitFor(() => retryDelays(lines, "steady").length >= 3, 30_000, "three failures");
    for (const delay of retryDelays(lines, "steady").slice(0, 3)) expect(delay).toBeLessThanOrEqual(120);
  });

  it("gives up after max_retries and removes the server's tools", async () => {
    const { sink, manager, status } = build({ crash: fakeServer("crash") }, { max_retries: 0 });
    manager.start();
    await manager.whenDiscovered();
    expect(sink.tools.size).toBe(2);
    await sink.run("mcp__crash__crash");
    await waitFor(() => status("crash")?.state === "failed", 5_000, "the failed state");
    expect(status("crash")).toMatchObject({ nextRetryAt: null, toolCount: 0 });
    expect(sink.tools.size).toBe(0);
  });

  it("fails a server whose command does not exist, with the reason", async () => {
    const { manager, status } = build({ missing: serverConfig({ command: "/nonexistent/mcp-server" }) }, { retry_initial_s: 30 });
    manager.start();
    await manager.whenDiscovered();
    expect(status("missing")).toMatchObject({ state: "failed", pid: null });
    expect(status("missing")?.error).toContain("ENOENT");
  });

  it("fails a server that exits during start-up, keeping its last stderr lines", async () => {
    const { manager, status } = build(
      { dies: serverConfig({ command: process.execPath, args: ["-e", "console.error('missing API key'); process.exit(2)"] }) },
      { retry_initial_s: 30 },
    );
    manager.start();
    await manager.whenDiscovered();
    expect(status("dies")?.error).toContain("exited during start-up");
    await waitFor(() => status("dies")?.stderrTail.includes("missing API key"), 5_000, "the stderr tail");
  });

  it("fails a server that writes garbage to stdout long before the connect timeout", async () => {
    const { manager, status } = build({ garbage: fakeServer("garbage", { connect_timeout_s: 20 }) }, { retry_initial_s: 30 });
    const t0 = Date.now();
    manager.start();
    await manager.whenDiscovered();
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(status("garbage")?.state).toBe("failed");
    expect(status("garbage")?.error).toContain("not valid JSON-RPC");
  });

  it("drains and rate-limits a stderr flood; the flooding server still works", async () => {
    const { sink, lines, manager, status } = build({ flood: fakeServer("flood") });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = Date.now();
    manager.start();
    await manager.whenDiscovered();
    expect(status("flood")?.state).toBe("ready");
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await sink.run("mcp__flood__echo", { text: "still here" })).toEqual({ success: true, result: "still here" });
    delay.disable();
    const seconds = (Date.now() - t0) / 1000;
    const logged = lines.filter((l) => l["stream"] === "stderr").length;
    // Budget: a burst of 100 plus 20 lines a second.
    expect(logged).toBeLessThanOrEqual(100 + Math.ceil(20 * seconds) + 5);
    expect(status("flood")?.stderrDroppedBytes).toBeGreaterThan(100_000);
    expect(lines.some((l) => /is flooding stderr/.test(l.msg))).toBe(true);
    console.log(
      `stderr flood: ${logged} lines logged, ${status("flood")?.stderrDroppedBytes} bytes dropped in ${seconds.toFixed(1)} s; event-loop max ${(delay.max / 1e6).toFixed(1)} ms`,
    );
  });

  it("shuts down a server that ignores stdin EOF and SIGTERM, leaving no process", async () => {
    const { sink, lines, manager, status } = build({ stubborn: fakeServer("stubborn") });
    manager.start();
    await manager.whenDiscovered();
    expect(await sink.run("mcp__stubborn__echo", { text: "x" })).toEqual({ success: true, result: "x" });
    const pid = status("stubborn")?.pid;
    expect((await descendants()).map((p) => p.pid)).toContain(pid);
    const t0 = Date.now();
    await manager.shutdown();
    // stdin EOF (ignored) → 2 s → SIGTERM (ignored) → 2 s → SIGKILL.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(3_500);
    expect(await descendants()).toEqual([]);
    expect(lines.some((l) => /SIGTERM ignored/.test(l.msg))).toBe(true);
  });
});
