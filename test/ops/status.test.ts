/**
 * `hermes-gateway status` and `healthcheck` against a real daemon (a child
 * process between the fake Telegram API and the fake LLM server): running and
 * healthy with turns in flight, degraded (a platform in backoff), stuck, and stopped.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { healthcheckCommand } from "../../gateway/cli/healthcheck.js";
import { statusCommand } from "../../gateway/cli/status.js";
import type { StatusReport } from "../../gateway/cli/status-render.js";
import { fakePath } from "../fakes/mcp-fakes.js";
import { dmText } from "../fakes/telegram-updates.js";
import { type DaemonRig, openDaemonRig } from "./daemon-rig.js";
import { captureIo, eventually, freePort } from "./helpers.js";

let rig: DaemonRig;
beforeEach(async () => {
  rig = await openDaemonRig();
});
afterEach(async () => rig.close());

const API_KEY = "status-test-api-key-0123456789";
const GATEWAY = { busy_input_mode: "queue", drain_timeout_s: 1, platform_connect_timeout_s: 1 };

async function status(args: string[] = ["--json"], extra: Record<string, string> = {}): Promise<{ code: number; report: StatusReport; text: string }> {
  const io = captureIo();
  const code = await statusCommand(args, rig.env(extra), io);
  const text = io.stdout();
  return { code, text, report: args.includes("--json") ? (JSON.parse(text) as StatusReport) : (null as unknown as StatusReport) };
}

describe("status", () => {
  it("a running, healthy daemon: pid, version, platforms with their last receive, turns in flight and queued, the store", async () => {
    await rig.configure(GATEWAY);
    const d = rig.start({ API_SERVER_KEY: API_KEY });
    await d.waitForLog("hermes-gateway ready");

    const first = await eventually(async () => {
      const s = await status(["--json"], { API_SERVER_KEY: API_KEY });
      return s.report.daemon?.platforms.find((p) => p.name === "telegram")?.last_receive_at ? s : null;
    }, "a completed getUpdates");
    expect(first.code).toBe(0);
    const r = first.report;
    expect(r).toMatchObject({ running: true, healthy: true, pid: d.child.pid, problem: null });
    const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(r.daemon).toMatchObject({ version: pkg.version, pid: d.child.pid, home: rig.home, state: "running", healthy: true });
    expect(r.daemon?.platforms.map((p) => [p.name, p.state])).toEqual(
      expect.arrayContaining([
        ["telegram", "connected"],
        ["api", "connected"],
      ]),
    );
    expect(r.daemon?.store.db_bytes).toBeGreaterThan(0);
    expect(r.daemon?.store.path).toBe(join(rig.home, "state.db"));

    rig.llm.respondWith(() => ({ hang: "before_headers" }));
    rig.tg.pushUpdate(dmText("first"));
    await rig.llm.waitForRequests(1, 10_000);
    rig.tg.pushUpdate(dmText("second"));
    const busy = await eventually(async () => {
      const s = await status(["--json"], { API_SERVER_KEY: API_KEY });
      return s.report.daemon?.turns.queued === 1 ? s : null;
    }, "the second message queued");
    expect(busy.report.daemon?.turns).toMatchObject({ running: 1, queued: 1, sessions: 1, slots_in_use: 1, slots_max: 16 });

    const text = await status([], { API_SERVER_KEY: API_KEY });
    expect(text.code).toBe(0);
    expect(text.text).toContain(`● hermes-gateway ${pkg.version} — running, healthy`);
    expect(text.text).toContain(`pid ${d.child.pid}`);
    expect(text.text).toMatch(/✓ telegram +connected +last receive \d+ s ago/);
    expect(text.text).toContain("Turns      1 running, 1 queued");
    expect(text.text).toContain(`Store      ${join(rig.home, "state.db")}`);

    // The endpoint wants the API key when one is configured.
    expect((await fetch(`http://127.0.0.1:${rig.port}/status`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${rig.port}/status`, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(200);

    const health = captureIo();
    expect(await healthcheckCommand([], rig.env(), health)).toBe(0);
    expect(health.stdout()).toBe(`ok: http://127.0.0.1:${rig.port}/healthz`);

    // Another HERMES_HOME with the same port: the daemon that answers is not its daemon.
    const elsewhere = captureIo();
    expect(await statusCommand(["--json"], { ...rig.env({ API_SERVER_KEY: API_KEY }), HERMES_HOME: join(rig.home, "other") }, elsewhere)).toBe(3);
    expect((JSON.parse(elsewhere.stdout()) as StatusReport).problem).toContain(`serves another HERMES_HOME (${rig.home})`);

    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
    expect((await status()).code).toBe(3);
  });

  it("a degraded daemon: a platform in backoff and a failing MCP server are named beside a ready one, exit 1", async () => {
    const server = fakePath("normal");
    await rig.configure(GATEWAY, [
      "mcp_servers:",
      "  calc:",
      `    command: ${process.execPath}`,
      `    args: ["${server}", "${rig.home}"]`,
      "  broken:",
      `    command: ${join(rig.home, "no-such-server")}`,
    ]);
    const d = rig.start({ TELEGRAM_API_ROOT: `http://127.0.0.1:${await freePort()}` }); // nothing listens there
    await d.waitForLog("hermes-gateway ready");
    const { code, report } = await eventually(async () => {
      const s = await status();
      return s.report.daemon?.mcp.find((m) => m.name === "calc")?.state === "ready" &&
        s.report.daemon.mcp.find((m) => m.name === "broken")?.state !== "connecting"
        ? s
        : null;
    }, "MCP discovery to settle");
    expect(code).toBe(1);
    expect(report).toMatchObject({ running: true, healthy: false, pid: d.child.pid });
    expect(report.problem).toContain("not ready: telegram, mcp:broken");
    expect(report.daemon?.mcp.find((m) => m.name === "calc")?.tools).toBeGreaterThan(0);
    expect(report.daemon?.mcp.find((m) => m.name === "broken")?.error).toBeTruthy();
    expect(report.daemon?.platforms.find((p) => p.name === "telegram")).toMatchObject({ state: "retrying", last_receive_at: null });
    const text = await status([]);
    expect(text.code).toBe(1);
    expect(text.text).toContain("running, degraded (not ready: telegram, mcp:broken)");
    expect(text.text).toMatch(/✗ telegram +retrying: getMe failed/);
    expect(text.text).toContain("nothing received yet");
    expect(text.text).toMatch(/✓ calc +ready +\d+ tool\(s\)/);
    expect(text.text).toMatch(/✗ broken +(retrying|failed): /);
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("a stopped daemon: exit 3, with or without a pid file left behind", async () => {
    const none = await status();
    expect(none.code).toBe(3);
    expect(none.report).toMatchObject({ running: false, healthy: false, pid: null, daemon: null });
    expect(none.report.problem).toContain(`no daemon holds ${join(rig.home, "gateway.pid")}`);

    await writeFile(join(rig.home, "gateway.pid"), JSON.stringify({ pid: 99_999_999, kind: "hermes-gateway" }));
    const stale = await status([]);
    expect(stale.code).toBe(3);
    expect(stale.text).toContain("names pid 99999999, which is gone");

    const health = captureIo();
    expect(await healthcheckCommand([], rig.env(), health)).toBe(1);
    expect(health.stderr()).toBe(`nothing answers at http://127.0.0.1:${rig.port}/healthz`);
  });

  it("a daemon that holds the pid file but does not answer: exit 1", async () => {
    await writeFile(join(rig.home, "gateway.pid"), JSON.stringify({ pid: process.pid, kind: "hermes-gateway" }));
    const { code, report } = await status();
    expect(code).toBe(1);
    expect(report).toMatchObject({ running: true, healthy: false, pid: process.pid });
    expect(report.problem).toContain(`nothing answers at http://127.0.0.1:${rig.port}`);
  });

  it("has --help, and exits 78 on an invalid configuration", async () => {
    const help = captureIo();
    expect(await statusCommand(["--help"], rig.env(), help)).toBe(0);
    expect(help.stdout()).toContain("Exit codes: 0 running and healthy, 1 running but degraded");
    const healthHelp = captureIo();
    expect(await healthcheckCommand(["--help"], rig.env(), healthHelp)).toBe(0);
    expect(healthHelp.stdout()).toContain("Usage: hermes-gateway healthcheck");
    await writeFile(join(rig.home, "config.yaml"), "gateway:\n  http: {port: lots}\n");
    expect(await statusCommand([], rig.env({ HERMES_HTTP_PORT: "" }), captureIo())).toBe(78);
    expect(await statusCommand(["--frob"], rig.env(), captureIo())).toBe(64);
  });
});
