/**
 * The daemon serving its OpenAI-compatible API, driven by the real openai SDK
 * as a client, with the model behind it played by the fake LLM server.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DaemonProcess, spawnCli } from "../fakes/daemon-process.js";
import { answerBeforeBody } from "../fakes/early-answer.js";
import { type FakeLlmServer, type FakeRequest, fakeModelYaml, startFakeLlmServer } from "../fakes/llm-server.js";
import { fakePath } from "../fakes/mcp-fakes.js";
import { until } from "../wait.js";

const KEY = "api-key-for-the-e2e-test";
let home: string;
let llm: FakeLlmServer;
let daemon: DaemonProcess | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-e2e-api-"));
  llm = await startFakeLlmServer();
  await writeFile(
    join(home, "config.yaml"),
    `model:\n  provider: custom\n  base_url: ${llm.openaiBaseUrl}\n  model: fake-model\ngateway:\n  drain_timeout_s: 1\n`,
  );
});

afterEach(async () => {
  if (daemon && daemon.child.exitCode === null) {
    daemon.child.kill("SIGKILL");
    await daemon.exited;
  }
  await llm.close();
  await rm(home, { recursive: true, force: true });
});

const userTexts = (req: FakeRequest) => (req.body.messages as { role: string; content: string }[]).filter((m) => m.role === "user").map((m) => m.content);

describe("daemon with the OpenAI-compatible API", () => {
  it("answers chat completions (plain and streamed), keeps each session's history, and refuses a bad key", async () => {
    llm.respondWith((req) => ({ text: `you said ${userTexts(req).length} thing(s), last: ${userTexts(req).at(-1)}` }));
    daemon = spawnCli(["run"], { HERMES_HOME: home, HERMES_HTTP_PORT: "0", API_SERVER_KEY: KEY });
    const ready = await daemon.waitForLog("hermes-gateway ready");
    const baseURL = `${ready.url as string}/v1`;
    const client = new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0 });

    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain("hermes-agent");

    const first = await client.chat.completions.create(
      { model: "hermes-agent", messages: [{ role: "user", content: "alpha" }] },
      { headers: { "X-Hermes-Session": "e2e" } },
    );
    expect(first.choices[0]?.message.content).toBe("you said 1 thing(s), last: alpha");

    const stream = await client.chat.completions.create(
      { model: "hermes-agent", stream: true, messages: [{ role: "user", content: "beta" }] },
      { headers: { "X-Hermes-Session": "e2e" } },
    );
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    expect(streamed).toBe("you said 2 thing(s), last: beta");

    const other = await client.chat.completions.create(
      { model: "hermes-agent", messages: [{ role: "user", content: "gamma" }] },
      { headers: { "X-Hermes-Session": "someone-else" } },
    );
    expect(other.choices[0]?.message.content).toBe("you said 1 thing(s), last: gamma");

    const bad = new OpenAI({ apiKey: "wrong", baseURL, maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: "hermes-agent", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 401 });
    // Without the key, an 8 MiB body is refused from the headers: 60 at once, none of them read.
    const unread = await Promise.all(Array.from({ length: 60 }, () => answerBeforeBody(`${baseURL}/chat/completions`, { declaredBytes: 8 * 1024 * 1024 })));
    expect(unread.map((r) => r.status)).toEqual(Array(60).fill(401));
    expect(unread.every((r) => r.closedByServer)).toBe(true);

    const readyz = (await (await fetch(`${ready.url as string}/readyz`)).json()) as { status: string; checks: { name: string; ready: boolean }[] };
    expect(readyz).toMatchObject({ status: "ready" });
    expect(readyz.checks.map((c) => c.name)).toEqual(["store", "api"]);

    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
  });

  it("streams a reply while the model writes it, the model's words before a tool call ahead of the answer", async () => {
    const answer = "Noted: the list has one item now, and this sentence arrives in small pieces.";
    llm.respondWith((req) => {
      const last = (req.body.messages as { role: string }[]).at(-1);
      if (last?.role === "tool") return { text: answer, chunkChars: 4, frameDelayMs: 20 };
      return {
        text: "Let me note that.",
        toolCalls: [{ id: "call_1", name: "todo", arguments: { todos: [{ id: "1", content: "buy milk", status: "pending" }] } }],
      };
    });
    daemon = spawnCli(["run"], { HERMES_HOME: home, HERMES_HTTP_PORT: "0", API_SERVER_KEY: KEY });
    const ready = await daemon.waitForLog("hermes-gateway ready");
    const client = new OpenAI({ apiKey: KEY, baseURL: `${ready.url as string}/v1`, maxRetries: 0 });

    const stream = await client.chat.completions.create(
      { model: "hermes-agent", stream: true, messages: [{ role: "user", content: "note milk" }] },
      { headers: { "X-Hermes-Session": "streamed" } },
    );
    const deltas: { text: string; at: number }[] = [];
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta.content;
      if (text) deltas.push({ text, at: performance.now() });
      finish ??= chunk.choices[0]?.finish_reason;
    }
    expect(deltas.map((d) => d.text).join("")).toBe(`Let me note that.\n\n${answer}`);
    expect(finish).toBe("stop");
    // Delivered as written (the answer takes ~19 frames 20 ms apart), not in one piece at the end.
    expect(deltas.length).toBeGreaterThan(10);
    expect((deltas.at(-1)?.at ?? 0) - (deltas[0]?.at ?? 0)).toBeGreaterThan(150);

    // Without stream: the answer alone.
    const plain = await client.chat.completions.create(
      { model: "hermes-agent", messages: [{ role: "user", content: "note milk" }] },
      { headers: { "X-Hermes-Session": "plain" } },
    );
    expect(plain.choices[0]?.message.content).toBe(answer);

    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
  });

  it("puts a memory saved in one session into the next session's system prompt, and leaves a running session's prompt as it was", async () => {
    const systemOf = (req: FakeRequest) => (req.body.messages as { role: string; content: string }[]).find((m) => m.role === "system")?.content ?? "";
    llm.respondWith((req) => {
      const last = (req.body.messages as { role: string; content: string }[]).at(-1);
      if (last?.role === "user" && last.content === "remember tea")
        return { toolCalls: [{ id: "call_m", name: "memory", arguments: { action: "add", target: "user", content: "Prefers green tea." } }] };
      return { text: "ok" };
    });
    daemon = spawnCli(["run"], { HERMES_HOME: home, HERMES_HTTP_PORT: "0", API_SERVER_KEY: KEY });
    const ready = await daemon.waitForLog("hermes-gateway ready");
    const client = new OpenAI({ apiKey: KEY, baseURL: `${ready.url as string}/v1`, maxRetries: 0 });
    const ask = (session: string, content: string) =>
      client.chat.completions.create({ model: "hermes-agent", messages: [{ role: "user", content }] }, { headers: { "X-Hermes-Session": session } });

    await ask("first", "remember tea");
    await ask("first", "and now?");
    await ask("second", "hello");

    const byPrompt = llm.completions().map((r) => ({ user: userTexts(r).at(-1), system: systemOf(r) }));
    expect(byPrompt.map((r) => r.user)).toEqual(["remember tea", "remember tea", "and now?", "hello"]);
    expect(byPrompt[0]!.system).not.toContain("Prefers green tea.");
    expect(byPrompt[2]!.system).toBe(byPrompt[0]!.system); // frozen for the session's life (prompt cache)
    expect(byPrompt[3]!.system).toContain("Prefers green tea.");

    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
  });
});

describe("daemon with an MCP server", () => {
  it("offers the server's tools to the model once discovered, calls them from a worker, and leaves no process behind", async () => {
    const server = fakePath("normal");
    const hang = fakePath("hang");
    await writeFile(
      join(home, "config.yaml"),
      [
        ...fakeModelYaml(llm),
        "gateway:",
        "  drain_timeout_s: 1",
        "mcp_servers:",
        "  calc:",
        `    command: ${process.execPath}`,
        `    args: ["${server}", "${home}"]`, // the home path marks this test's processes
        "  stuck:",
        `    command: ${process.execPath}`,
        `    args: ["${hang}", "${home}"]`,
        "    connect_timeout_s: 2",
        "",
      ].join("\n"),
    );
    llm.respondWith((req) => {
      const msgs = req.body.messages as { role: string; content: string }[];
      const tools = ((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
      if (msgs.at(-1)?.role === "tool") return { text: `sum is ${msgs.at(-1)?.content}` };
      if (!tools.includes("mcp__calc__add")) return { text: "no calculator yet" };
      return { toolCalls: [{ name: "mcp__calc__add", arguments: { a: 2, b: 40 } }] };
    });
    daemon = spawnCli(["run"], { HERMES_HOME: home, HERMES_HTTP_PORT: "0", API_SERVER_KEY: KEY });
    const ready = await daemon.waitForLog("hermes-gateway ready");
    const client = new OpenAI({ apiKey: KEY, baseURL: `${ready.url as string}/v1`, maxRetries: 0 });

    // Asked again (a new session each time) until the MCP server's tool is there to answer with.
    const ask = async () => {
      const r = await client.chat.completions.create(
        { model: "hermes-agent", messages: [{ role: "user", content: "add 2 and 40" }] },
        { headers: { "X-Hermes-Session": `mcp-${Date.now()}` } },
      );
      const content = r.choices[0]?.message.content ?? "";
      return content.startsWith("sum is") && content;
    };
    const answer = await until(ask, "an answer from the MCP tool", 30_000, 300);
    expect(answer).toContain("42");

    const readyz = (await (await fetch(`${ready.url as string}/readyz`)).json()) as { status: string; checks: { name: string; ready: boolean }[] };
    const names = readyz.checks.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["mcp:calc", "mcp:stuck"]));
    expect(readyz.checks.find((c) => c.name === "mcp:calc")?.ready).toBe(true);

    // doctor asks the running daemon: one line per server, with its state.
    const doctor = spawnCli(["doctor"], { HERMES_HOME: home, HERMES_HTTP_PORT: new URL(ready.url as string).port });
    expect(await doctor.exited).toBe(0);
    expect(doctor.stdout()).toMatch(/✓ mcp calc +ready/);
    expect(doctor.stdout()).toMatch(/✗ mcp stuck +(connecting|retrying|failed)\b/);

    const pid = daemon.child.pid as number;
    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
    const { execFileSync } = await import("node:child_process");
    const ps = execFileSync("ps", ["-e", "-o", "pid=,ppid=,args="]).toString();
    const leftovers = ps.split("\n").filter((l) => l.includes(home) || new RegExp(`^\\s*\\d+\\s+${pid}\\s`).test(l));
    expect(leftovers).toEqual([]);
  });
});
