import { afterEach, describe, expect, it } from "vitest";
import { parseApproveArgs, parseDenyArgs } from "../../gateway/runtime/commands/approval-commands.js";
import { parseCommand } from "../../gateway/runtime/commands/parse.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { TODO_REINJECTION_HEADER } from "../../tools/todo/index.js";
import { type Harness, type HarnessOptions, makeHarness } from "./helpers/harness.js";
import { completed, echo, inputText, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const never = new AbortController().signal;

async function chat(o: HarnessOptions = {}) {
  h = await makeHarness(o);
  const hh = h;
  return async (text: string, expectText: string | RegExp) => {
    const before = hh.adapter.sends().length;
    await hh.adapter.message(text);
    for (let i = 0; i < 200 && hh.adapter.sends().length === before; i++) await wait(5, never);
    const got = hh.adapter
      .sends()
      .slice(before)
      .map((s) => s.opts.text);
    const ok = got.some((t) => (typeof expectText === "string" ? t.includes(expectText) : expectText.test(t)));
    if (!ok) throw new Error(`after ${JSON.stringify(text)} expected ${String(expectText)}, got ${JSON.stringify(got)}`);
    return got.join("\n");
  };
}

describe("command parsing", () => {
  it("lowercases, strips @bot, keeps args, and treats paths as text", () => {
    expect(parseCommand("/Status@hermes_bot", "telegram")).toEqual({ name: "status", args: "" });
    expect(parseCommand("/title  My   plan ", "telegram")).toEqual({ name: "title", args: "My   plan" });
    expect(parseCommand("/etc/hosts please", "telegram")).toBeNull();
    expect(parseCommand("hello /stop", "telegram")).toBeNull();
    expect(parseCommand("!stop", "slack")).toEqual({ name: "stop", args: "" });
    expect(parseCommand("!stop", "telegram")).toBeNull();
    expect(parseCommand("/model x \u2014global", "discord")).toEqual({ name: "model", args: "x --global" });
  });
  it("parses /approve and /deny arguments", () => {
    expect(parseApproveArgs("")).toEqual({ choice: "once", all: false });
    expect(parseApproveArgs("all session")).toEqual({ choice: "session", all: true });
    expect(parseApproveArgs("permanently")).toEqual({ choice: "always", all: false });
    expect(parseDenyArgs("all too risky")).toEqual({ all: true, reason: "too risky" });
    expect(parseDenyArgs("")).toEqual({ all: false, reason: null });
  });
});

describe("session commands", () => {
  it("/new starts a fresh session; history does not carry over", async () => {
    const runner = new ScriptedRunner(async (req) => completed(req, `history=${req.history.length}`));
    const say = await chat({ runner });
    await say("one", "history=0");
    await say("two", "history=2");
    await say("/new", TEXT.newSession);
    await say("three", "history=0");
    expect(new Set(runner.calls.map((c) => c.sessionId)).size).toBe(2);
  });

  it("/retry re-sends the last user message and /undo removes exchanges", async () => {
    let n = 0;
    const runner = new ScriptedRunner(async (req) => completed(req, `#${++n} ${inputText(req)} (h=${req.history.length})`));
    const say = await chat({ runner });
    await say("alpha", "#1 alpha (h=0)");
    await say("beta", "#2 beta (h=2)");
    await say("/retry", "#3 beta (h=2)");
    await say("/undo", "Removed the last 1 exchange");
    await say("gamma", "#4 gamma (h=2)");
    await say("/undo 5", "Removed the last 2 exchanges");
    await say("delta", "#5 delta (h=0)");
  });

  it("/retry and /undo skip what the gateway wrote as the user (the todo list re-injected after a compression)", async () => {
    let n = 0;
    const reinjected = `${TODO_REINJECTION_HEADER}\n- [ ] ship it`;
    // The turn ends as a compressed one does: the todo list re-injected after the answer.
    const runner = new ScriptedRunner(async (req) => {
      const r = completed(req, `#${++n} ${inputText(req)}`);
      return { ...r, messages: [...r.messages, { role: "user", content: reinjected }] };
    });
    const say = await chat({ runner });
    await say("alpha", "#1 alpha");
    await say("/retry", "#2 alpha");
    expect(runner.calls.map(inputText)).toEqual(["alpha", "alpha"]);
    await say("/undo", "Removed the last 1 exchange");
    const [session] = h!.raw.sessions.list();
    expect(h!.store.loadHistory(session!.id)).toEqual([]);
  });

  it("/title sets and shows; /sessions lists; /resume switches back", async () => {
    const say = await chat({ runner: new ScriptedRunner(async (req) => completed(req, `h=${req.history.length}`)) });
    await say("first", "h=0");
    await say("/title Project X", "Session title set to **Project X**");
    await say("/title", "Title: **Project X**");
    await say("/new", TEXT.newSession);
    await say("second", "h=0");
    await say("/sessions", "Project X");
    await say("/resume project x", "Resumed **Project X**");
    await say("third", "h=2");
    await say("/resume nothing-like-this", "No session of yours matches");
  });

  it("/model shows and switches the session's model", async () => {
    const runner = new ScriptedRunner(async (req) => completed(req, `model=${req.model}`));
    const say = await chat({ runner, config: { model: { model: "base-model" } } });
    await say("hi", "model=base-model");
    await say("/model", "Model: `base-model`");
    await say("/model fancy-1", "Model for this session: `fancy-1`");
    await say("hi", "model=fancy-1");
  });

  it("/usage, /whoami, /help, /sethome answer", async () => {
    const say = await chat();
    await say("hi", "echo: hi");
    await say("/usage", /Input: 10 tokens/);
    await say("/whoami", "Authorized by: allow-all");
    const help = await say("/help", "Hermes commands");
    for (const c of ["/new", "/stop", "/approve", "/deny", "/queue", "/steer", "/yolo", "/reload-mcp", "/compress"]) expect(help).toContain(c);
    await say("/sethome", "Home channel set");
    expect(h!.store.getHomeChannel("test")).toMatchObject({ chatId: "alice" });
  });

  it("unknown commands get a helpful reply and are not sent to the agent", async () => {
    const runner = new ScriptedRunner();
    const say = await chat({ runner });
    await say("/frobnicate now", TEXT.unknownCommand("frobnicate"));
    expect(runner.calls).toHaveLength(0);
  });

  it("/reload-mcp and /compress say not available unless wired, and call the hook when wired", async () => {
    const say = await chat();
    await say("/reload-mcp", TEXT.notAvailable("reload-mcp"));
    await say("/compress", TEXT.notAvailable("compress"));
    await h!.close();
    const calls: string[] = [];
    const say2 = await chat({
      hooks: { reloadMcp: async () => (calls.push("mcp"), "3 servers, 12 tools"), compress: async (id) => (calls.push(`c:${id.length}`), "saved 40%") },
    });
    await say2("hi", "echo: hi");
    await say2("/reload-mcp", "/reload-mcp confirm"); // approvals.mcp_reload_confirm (default) asks first
    await say2("/reload-mcp confirm", "3 servers, 12 tools");
    await say2("/compress", "saved 40%");
    expect(calls).toEqual(["mcp", "c:36"]);
  });
});

describe("/queue and /steer", () => {
  it("/queue always makes a separate turn, even in interrupt mode", async () => {
    const runner = new ScriptedRunner(echo(60));
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "interrupt" } } });
    await h.adapter.message("first");
    for (let i = 0; i < 50 && runner.calls.length === 0; i++) await wait(5, never);
    await h.adapter.message("/queue second");
    await h.adapter.waitForText("echo: second");
    expect(h.adapter.texts()).toEqual([TEXT.queued(1), "echo: first", "echo: second"]);
  });

  it("/steer while the session's turn waits for a concurrency slot joins that turn: one turn, one reply", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const runner = new ScriptedRunner(async (req) => {
      if (inputText(req) === "first") await held;
      return completed(req, `echo: ${inputText(req)}`);
    });
    h = await makeHarness({ runner, config: { gateway: { busy_input_mode: "queue", busy_ack: false, max_concurrent_turns: 1 } } });
    await h.adapter.message({ text: "first", user: "a" });
    for (let i = 0; i < 50 && runner.calls.length === 0; i++) await wait(5, never);
    await h.adapter.message({ text: "second", user: "b" }); // waits: user a's turn holds the only slot
    await h.adapter.message({ text: "/steer in blue", user: "b" });
    await h.adapter.waitForText(TEXT.steerJoined("in blue"));
    release();
    await h.adapter.waitForText("echo: second\n\nin blue");
    expect(runner.calls.map(inputText)).toEqual(["first", "second\n\nin blue"]);
  });

  it("/steer with nothing running becomes a normal message; empty prompts get usage", async () => {
    h = await makeHarness();
    await h.adapter.message("/steer look here");
    await h.adapter.waitForText("echo: look here");
    await h.adapter.message("/queue");
    await h.adapter.waitForText(TEXT.queueUsage);
  });
});
