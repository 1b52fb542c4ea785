import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { FakeDiscord } from "../fakes/discord-api.js";
import { BOT } from "../fakes/discord-state.js";
import { listenOnLoopback } from "../fakes/loopback-server.js";
import { until } from "../wait.js";

let home: string;
const running: DaemonProcess[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-daemon-"));
});
afterEach(async () => {
  for (const d of running.splice(0)) {
    if (d.child.exitCode === null) {
      d.child.kill("SIGKILL");
      await d.exited;
    }
  }
  await rm(home, { recursive: true, force: true });
});

function start(env: Record<string, string> = {}, args: string[] = ["run"]): DaemonProcess {
  const d = spawnCli(args, { HERMES_HOME: home, HERMES_HTTP_PORT: "0", ...env });
  running.push(d);
  return d;
}

describe("daemon", () => {
  it("starts with no config, serves health, readiness and metrics, and stops cleanly on SIGTERM", async () => {
    const d = start();
    const ready = await d.waitForLog("hermes-gateway ready");
    const url = ready.url as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok" });
    const readyz = await fetch(`${url}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await readyz.json()).toMatchObject({ status: "ready", not_ready: [] });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain("hermes_nodejs_eventloop_lag_max_seconds");
    expect(metrics).toContain("# TYPE hermes_turn_stage_seconds histogram");
    expect(metrics).toContain("# TYPE hermes_provider_request_duration_seconds histogram");
    expect(metrics).toContain("hermes_process_resident_memory_bytes");
    expect(metrics).toContain("hermes_inbound_messages_total");

    // A fresh install says exactly what to configure next.
    expect(d.stdout()).toContain("OPENROUTER_API_KEY");
    expect(d.stdout()).toContain("TELEGRAM_BOT_TOKEN");
    expect(existsSync(join(home, "state.db"))).toBe(true);
    expect(existsSync(join(home, "gateway.pid"))).toBe(true);

    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
    expect(existsSync(join(home, "gateway.pid"))).toBe(false);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it("exits 75 on SIGUSR1 (restart requested)", async () => {
    const d = start();
    await d.waitForLog("hermes-gateway ready");
    d.child.kill("SIGUSR1");
    expect(await d.exited).toBe(75);
  });

  it("a SIGTERM or SIGUSR1 during start-up (a platform still connecting) aborts the start, stops what started in reverse, and exits 0 or 75", async () => {
    const silent = await silentServer();
    try {
      await writeFile(join(home, "config.yaml"), "gateway:\n  platform_connect_timeout_s: 600\nlogging:\n  level: debug\n");
      for (const [signal, code] of [
        ["SIGTERM", 0],
        ["SIGUSR1", 75],
      ] as const) {
        const d = start({ TELEGRAM_BOT_TOKEN: "1:x", TELEGRAM_API_ROOT: silent.url });
        const asked = silent.requests.length;
        await until(() => silent.requests.length > asked, "the adapter's first call", 20_000, 25);
        d.child.kill(signal);
        expect(await d.exited, d.stdout()).toBe(code);
        const lines = d
          .stdout()
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as { msg: string; component?: string });
        expect(lines.some((l) => l.msg === "hermes-gateway ready")).toBe(false);
        expect(lines.find((l) => l.msg === "start-up aborted; stopping what has started")?.component).toBe("adapters");
        const startedOrder = lines.filter((l) => l.msg === "started").map((l) => l.component);
        const stoppedOrder = lines.filter((l) => l.msg === "stopped" && l.component).map((l) => l.component);
        // The adapters' start gives up at the signal; it and everything before it stop, in reverse; nothing after it starts.
        expect(startedOrder).toEqual(["instance-lock", "store", "tools", "mcp", "runtime", "http", "adapters"]);
        expect(stoppedOrder).toEqual([...startedOrder].reverse());
        expect(existsSync(join(home, "gateway.pid"))).toBe(false);
      }
    } finally {
      await silent.close();
    }
  });

  it("refuses a second instance on the same HERMES_HOME", async () => {
    const first = start();
    await first.waitForLog("hermes-gateway ready");
    const second = start();
    expect(await second.exited).toBe(1);
    expect(second.stdout()).toContain("HGW_ERR_INSTANCE_RUNNING");
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
  });

  it("takes over a pid file left by a dead process", async () => {
    await writeFile(join(home, "gateway.pid"), JSON.stringify({ pid: 999_999_9, kind: "hermes-gateway" }));
    const d = start();
    await d.waitForLog("hermes-gateway ready");
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("of two daemons started at the same instant on one HERMES_HOME exactly one runs, over a stale pid file or none", async () => {
    for (const stale of [true, false]) {
      if (stale) await writeFile(join(home, "gateway.pid"), JSON.stringify({ pid: 1, kind: "hermes-gateway", start_time: 1 }));
      else await rm(join(home, "gateway.pid"), { force: true });
      const pair = [start(), start()];
      const outcome = await Promise.all(
        pair.map((d) => Promise.race([d.waitForLog("hermes-gateway ready").then(() => "ready"), d.exited.then((code) => `exit ${code}`)])),
      );
      expect(outcome.sort(), `stale pid file: ${stale}`).toEqual(["exit 1", "ready"]);
      const winner = pair.find((d) => d.child.exitCode === null);
      const loser = pair.find((d) => d !== winner);
      expect(loser?.stdout()).toContain("HGW_ERR_INSTANCE_RUNNING");
      expect(loser?.stdout()).toContain(`pid ${winner?.child.pid} holds`);
      winner?.child.kill("SIGKILL");
      await winner?.exited;
    }
  });

  it("a platform whose configuration is incomplete is fatal: not retried, said once, not ready, the rest runs", async () => {
    await writeFile(join(home, "config.yaml"), "gateway:\n  platforms:\n    telegram:\n      transport: webhook\n");
    const d = start({ TELEGRAM_BOT_TOKEN: "1:x", TELEGRAM_API_ROOT: `http://127.0.0.1:${await closedPort()}` });
    const url = (await d.waitForLog("hermes-gateway ready")).url as string;
    const readyz = await fetch(`${url}/readyz`);
    expect(readyz.status).toBe(503);
    const body = (await readyz.json()) as { not_ready: string[]; checks: { name: string; detail?: string }[] };
    expect(body.not_ready).toEqual(["telegram"]);
    expect(body.checks.find((c) => c.name === "telegram")?.detail).toBe(
      "fatal: transport: webhook needs gateway.platforms.telegram.webhook_url and webhook_secret.",
    );
    expect(d.stdout().match(/platform cannot connect and is not retried/g)).toHaveLength(1);
    expect(d.stdout()).not.toContain("retrying in the background");
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });

  it("fails with exit 78 listing every config problem with its path and line", async () => {
    await writeFile(join(home, "config.yaml"), "model:\n  provder: x\ngateway:\n  busy_input_mode: sometimes\n");
    const d = start();
    expect(await d.exited).toBe(78);
    expect(d.stderr()).toContain("HGW_ERR_CONFIG_INVALID");
    expect(d.stderr()).toContain("model.provder (line 2): unknown key: provder");
    expect(d.stderr()).toContain("gateway.busy_input_mode (line 4)");
  });

  it("never logs a secret given in the config", async () => {
    const token = "5550001111:AAsecretTelegramTokenValueForTheLogTest";
    const key = "plain-looking-provider-key-0123456789";
    await writeFile(
      join(home, "config.yaml"),
      `model:\n  api_key: ${key}\ngateway:\n  platforms:\n    telegram:\n      token: ${token}\n      enabled: false\nlogging:\n  level: trace\n`,
    );
    const d = start();
    await d.waitForLog("hermes-gateway ready");
    d.child.kill("SIGTERM");
    await d.exited;
    const all = d.stdout() + d.stderr();
    expect(all.length).toBeGreaterThan(100);
    expect(all).not.toContain(token);
    expect(all).not.toContain("AAsecretTelegramToken");
    expect(all).not.toContain(key);
  });
});

describe("cli", () => {
  it("prints help and version", async () => {
    const help = start({}, ["--help"]);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain("Usage: hermes-gateway");
    const version = start({}, ["--version"]);
    expect(await version.exited).toBe(0);
    expect(version.stdout().trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("rejects unknown commands and options with exit 64", async () => {
    expect(await start({}, ["frobnicate"]).exited).toBe(64);
    expect(await start({}, ["--frob"]).exited).toBe(64);
  });

  it("config check: 0 when valid, 78 when not", async () => {
    const ok = start({}, ["config", "check"]);
    expect(await ok.exited).toBe(0);
    expect(ok.stdout()).toContain("configuration is valid");
    await writeFile(join(home, "config.yaml"), "agent:\n  max_turns: lots\n");
    const bad = start({}, ["config", "check"]);
    expect(await bad.exited).toBe(78);
    expect(bad.stderr()).toContain("agent.max_turns (line 2)");
  });

  it("an invalid regex and a YAML alias bomb are exit 78 in config check and run alike, listed, without a stack", async () => {
    const bomb = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
    for (const [i, n] of [..."bcdefghi"].entries()) bomb.push(`${n}: &${n} [${Array(9).fill(`*${"abcdefghi"[i]}`).join(", ")}]`);
    const cases = [
      {
        yaml: "gateway:\n  platforms:\n    telegram:\n      mention_patterns: ['(unclosed', '*bot']\n",
        expect: ["gateway.platforms.telegram.mention_patterns.0 (line 4)", "gateway.platforms.telegram.mention_patterns.1 (line 4)"],
      },
      { yaml: `${bomb.join("\n")}\n`, expect: ["YAML aliases expand too far"] },
    ];
    for (const c of cases) {
      await writeFile(join(home, "config.yaml"), c.yaml);
      for (const args of [["config", "check"], ["run"]]) {
        const d = start({ TELEGRAM_BOT_TOKEN: "1:x" }, args);
        expect(await d.exited, `${args.join(" ")}: ${d.stderr()}`).toBe(78);
        expect(d.stderr()).toContain("HGW_ERR_CONFIG_INVALID");
        for (const text of c.expect) expect(d.stderr()).toContain(text);
        expect(d.stderr()).not.toMatch(/^\s+at /m);
      }
    }
  });

  it("doctor reports each part on its own line", async () => {
    const d = start({ TELEGRAM_BOT_TOKEN: "1:x" }, ["doctor"]);
    expect(await d.exited).toBe(0);
    const out = d.stdout();
    expect(out).toMatch(/✓ config/);
    expect(out).toMatch(/✓ store/);
    expect(out).toMatch(/✗ provider openrouter .*OPENROUTER_API_KEY/);
    expect(out).toMatch(/✓ platform telegram .*pairing code/);
    expect(out).toMatch(/· platform discord +not configured: set DISCORD_BOT_TOKEN/);
    expect(out).toMatch(/· platform slack +not configured: set SLACK_BOT_TOKEN/);
  });

  it("doctor asks Discord whether the token is valid and the Message Content intent enabled", async () => {
    const discord = new FakeDiscord();
    const noIntent = new FakeDiscord({ messageContentAllowed: false });
    await Promise.all([discord.start(), noIntent.start()]);
    try {
      const ok = start({ DISCORD_BOT_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl }, ["doctor"]);
      const bad = start({ DISCORD_BOT_TOKEN: "MTk.bad.token", DISCORD_API_URL: discord.apiUrl }, ["doctor"]);
      const intent = start({ DISCORD_BOT_TOKEN: noIntent.token, DISCORD_API_URL: noIntent.apiUrl }, ["doctor"]);
      await Promise.all([ok.exited, bad.exited, intent.exited]);
      expect(ok.stdout()).toMatch(/✓ platform discord +nobody is allowlisted yet/);
      expect(ok.stdout()).toMatch(new RegExp(`✓ discord bot +hermes#${BOT.id}: token valid, Message Content intent enabled`));
      expect(bad.stdout()).toMatch(/✗ discord bot +token invalid \(Discord answered 401 Unauthorized\)/);
      expect(intent.stdout()).toMatch(/✗ discord bot +hermes#\d+: Message Content intent missing/);
    } finally {
      await Promise.all([discord.close(), noIntent.close()]);
    }
  });

  it("doctor lists the MCP servers when no daemon answers, and says whether they can run under SCHED_IDLE", async () => {
    const port = await closedPort();
    await writeFile(
      join(home, "config.yaml"),
      ["mcp_servers:", "  files: {command: /bin/true}", "  search: {url: http://127.0.0.1:9/mcp}", "  old: {command: /bin/true, enabled: false}", ""].join(
        "\n",
      ),
    );
    const d = start({ HERMES_HTTP_PORT: String(port) }, ["doctor"]);
    expect(await d.exited).toBe(0);
    expect(d.stdout()).toContain(
      `✗ mcp                  no daemon answers at http://127.0.0.1:${port}/readyz, so no server state: 3 configured (files, search; old disabled)`,
    );
    if (process.platform === "linux") expect(d.stdout()).toMatch(/✓ mcp scheduling +MCP worker threads and stdio servers run under SCHED_IDLE \(\/\S+\/chrt\)/);

    const noChrt = start({ HERMES_HTTP_PORT: String(port), PATH: home }, ["doctor"]);
    expect(await noChrt.exited).toBe(0);
    if (process.platform === "linux")
      expect(noChrt.stdout()).toContain(
        "✗ mcp scheduling       chrt not found on PATH: MCP worker threads and stdio servers run at niceness only (install util-linux, or set mcp.sched_idle: false)",
      );
  });
});

/** An HTTP server on loopback that takes every request and never answers it. */
async function silentServer(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = await listenOnLoopback((req) => void requests.push(req.url ?? ""));
  return { url: server.url, requests, close: () => server.close() };
}

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("cli sessions", () => {
  it("lists sessions and finds messages by content and tool name", async () => {
    const { openStore } = await import("../../gateway/store/index.js");
    const store = openStore(join(home, "state.db"));
    const a = store.sessions.create({ source: "telegram", userId: "42" });
    store.messages.append(a, { role: "user", content: "please deploy the kubernetes cluster" });
    store.messages.append(a, {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "terminal", arguments: '{"command":"kubectl apply -f deploy.yaml"}' } }],
    });
    const b = store.sessions.create({ source: "cli" });
    store.sessions.setTitle(b, "Grocery planning");
    store.messages.append(b, { role: "user", content: "buy apples" });
    store.close();

    const list = start({}, ["sessions", "list"]);
    expect(await list.exited).toBe(0);
    expect(list.stdout()).toContain(a);
    expect(list.stdout()).toContain("Grocery planning");
    expect(list.stdout()).toContain("please deploy the kubernetes cluster");

    const onlyCli = start({}, ["sessions", "list", "--source", "cli"]);
    expect(await onlyCli.exited).toBe(0);
    expect(onlyCli.stdout()).not.toContain(a);

    const search = start({}, ["sessions", "search", "kubernetes"]);
    expect(await search.exited).toBe(0);
    expect(search.stdout()).toContain(a);
    const byArgs = start({}, ["sessions", "search", "kubectl"]);
    expect(await byArgs.exited).toBe(0);
    expect(byArgs.stdout()).toContain(a);
    const none = start({}, ["sessions", "search", "zebra"]);
    expect(await none.exited).toBe(0);
    expect(none.stdout()).toContain("no matches");

    const exported = start({}, ["sessions", "export", a, "Grocery planning"]);
    expect(await exported.exited).toBe(0);
    const lines = exported
      .stdout()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { conversations: { from: string; value: string }[]; tools: string });
    expect(lines).toHaveLength(2);
    expect(lines[0]?.conversations.map((t) => t.from)).toEqual(["human", "gpt"]);
    expect(lines[0]?.conversations[1]?.value).toContain("<tool_call>");
    expect(lines[0]?.conversations[1]?.value).toContain("kubectl apply");
    expect(JSON.parse(lines[0]?.tools ?? "[]").length).toBeGreaterThan(5);
    expect(await start({}, ["sessions", "export", "no-such-session"]).exited).toBe(1);
  });
});

describe("cli pairing", () => {
  it("approves a pending code, lists the user, and revokes them", async () => {
    const { openStore } = await import("../../gateway/store/index.js");
    const { createPairing } = await import("../../gateway/runtime/index.js");
    const { systemClock } = await import("../../config/timing/index.js");
    const { runtimeStoreOver } = await import("../../gateway/wiring/runtime-store.js");
    const store = openStore(join(home, "state.db"));
    const issued = createPairing(runtimeStoreOver(store), systemClock).request("telegram", "4242", "Grace");
    store.close();
    expect(issued.kind).toBe("code");
    const code = issued.kind === "code" ? issued.code : "";

    const wrong = start({}, ["pairing", "approve", "telegram", "ZZZZZZZZ"]);
    expect(await wrong.exited).toBe(1);
    expect(wrong.stderr()).toContain("No pending pairing request");

    const ok = start({}, ["pairing", "approve", "telegram", code.toLowerCase()]);
    expect(await ok.exited).toBe(0);
    expect(ok.stdout()).toContain("Approved Grace");

    const list = start({}, ["pairing", "list"]);
    expect(await list.exited).toBe(0);
    expect(list.stdout()).toMatch(/Approved users \(1\):\n\s+telegram\s+4242\s+Grace/);
    expect(list.stdout()).not.toContain(code);

    const revoke = start({}, ["pairing", "revoke", "telegram", "4242"]);
    expect(await revoke.exited).toBe(0);
    expect(await start({}, ["pairing", "revoke", "telegram", "4242"]).exited).toBe(1);
    expect(await start({}, ["pairing"]).exited).toBe(64);
  });

  it("prints names and titles that came from a platform without their control characters", async () => {
    const { openStore } = await import("../../gateway/store/index.js");
    const { createPairing } = await import("../../gateway/runtime/index.js");
    const { systemClock } = await import("../../config/timing/index.js");
    const { runtimeStoreOver } = await import("../../gateway/wiring/runtime-store.js");
    const hostile = "Mal\u202Elory\x1b]0;owned\x07\x1b[2J\nApproved users (9):\u009b31m";
    const store = openStore(join(home, "state.db"));
    createPairing(runtimeStoreOver(store), systemClock).request("telegram", "666", hostile);
    const id = store.sessions.create({ source: "telegram", userId: "666" });
    store.sessions.setTitle(id, hostile);
    store.close();
    const unsafe = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

    const list = start({}, ["pairing", "list"]);
    expect(await list.exited).toBe(0);
    expect(list.stdout()).toContain("telegram  666  Mal lory");
    expect(list.stdout()).not.toMatch(unsafe);
    expect(list.stdout().match(/^Approved users/gm)).toHaveLength(1); // no forged line

    const sessions = start({}, ["sessions", "list"]);
    expect(await sessions.exited).toBe(0);
    expect(sessions.stdout()).toContain("Mal lory");
    expect(sessions.stdout()).not.toMatch(unsafe);
    expect(sessions.stdout().trim().split("\n")).toHaveLength(1);
  });
});
