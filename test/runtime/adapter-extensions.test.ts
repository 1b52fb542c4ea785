/**
 * What the runtime tells an adapter beyond sends, for an adapter that takes
 * turns with a person (the terminal): that a conversation is idle, every
 * tool call as progress, every question to ask in place, and which reply is
 * the agent's answer and which a failure; which earlier rows a runtime takes
 * over at start; and the terminal owner's standing in the access policy.
 */
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type ChatRef, clarifyUnansweredActionId, type TurnProgress } from "../../adapters/types.js";
import { authorize } from "../../gateway/runtime/authz.js";
import { createRuntime } from "../../gateway/runtime/index.js";
import { platformSettings, TERMINAL_OWNER } from "../../gateway/runtime/platform-settings.js";
import { openStore } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";
import { until } from "../e2e/helpers.js";
import { TestAdapter } from "../fakes/test-adapter.js";
import { dmEvent, dmKey, type Harness, makeHarness, testConfig } from "./helpers/harness.js";
import { completed, inputText, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

/** A test adapter that also records idle() and progress(). */
class TurnTakingAdapter extends TestAdapter {
  readonly idles: ChatRef[] = [];
  readonly shown: TurnProgress[] = [];
  idle(chat: ChatRef): void {
    this.idles.push(chat);
  }
  progress(_chat: ChatRef, p: TurnProgress): void {
    this.shown.push(p);
  }
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("an adapter that takes turns", () => {
  it("hears the conversation is idle after a turn and after a command on an idle conversation, not after one during a turn", async () => {
    const adapter = new TurnTakingAdapter();
    h = await makeHarness({
      adapter,
      runner: new ScriptedRunner(async (req, signal) => ((await wait(200, signal)) ? completed(req, `echo: ${inputText(req)}`) : completed(req, "stopped"))),
    });
    await h.adapter.message("/status");
    await until(() => adapter.idles.length === 1, "idle after the command");
    await h.adapter.message("hello");
    await h.adapter.message("/usage"); // runs while the turn does
    await h.adapter.waitForText("echo: hello");
    await until(() => adapter.idles.length === 2, "idle after the turn");
    await new Promise((r) => setTimeout(r, 100));
    expect(adapter.idles).toHaveLength(2);
    expect(adapter.idles[1]).toEqual(adapter.chatOf({ user: "alice" }));
  });

  it("gets every tool call and compression as progress instead of the text progress lines", async () => {
    const adapter = new TurnTakingAdapter();
    h = await makeHarness({
      adapter,
      config: { agent: { tool_progress: "all" } },
      runner: new ScriptedRunner(async (req) => {
        req.emit({ type: "tool_start", toolName: "read_file", preview: "a.txt" });
        req.emit({ type: "tool_end", toolName: "read_file", isError: false, durationMs: 200, preview: "ok" });
        req.emit({ type: "progress", progress: { kind: "compressed", tokensBefore: 9000, tokensAfter: 2000 } });
        return completed(req, "done");
      }),
    });
    await h.adapter.message("go");
    await h.adapter.waitForText("done");
    expect(adapter.shown).toEqual([
      { kind: "tool_start", tool: "read_file", preview: "a.txt" },
      { kind: "tool_end", tool: "read_file", ok: true, durationMs: 200, preview: "ok" },
      { kind: "compressed", tokensBefore: 9000, tokensAfter: 2000 },
    ]);
    expect(h.adapter.texts()).toEqual(["done"]);
  });

  it("marks the agent's answer and a failed turn's notice as the turn's end; command replies carry no mark", async () => {
    h = await makeHarness({
      runner: new ScriptedRunner(async (req) =>
        inputText(req) === "fail"
          ? { status: "failed", finalText: null, messages: [req.input], usage: completed(req, "").usage, error: "boom" }
          : completed(req, "fine"),
      ),
    });
    await h.adapter.message("hello");
    await h.adapter.waitForText("fine");
    await h.adapter.message("fail");
    await h.adapter.waitForText("boom");
    await h.adapter.message("/whoami");
    await h.adapter.waitForText("Authorized by");
    expect(h.adapter.sends().map((s) => s.opts.final)).toEqual(["answer", "failure", undefined]);
  });
});

describe("questions asked in place (capabilities.prompts)", () => {
  const asking = () =>
    new ScriptedRunner(async (req, signal) => {
      const a = await req.tools.clarifier.ask({ question: "Your name?", choices: [], allowFreeText: true }, signal);
      return completed(req, a.kind === "answer" ? `hello ${a.text}` : `no answer: ${a.kind}`);
    });

  it('"inline": a question without choices still goes to sendClarify, and "nobody can answer" tells the agent so', async () => {
    h = await makeHarness({ runner: asking(), capabilities: { prompts: "inline" } });
    await h.adapter.message("greet me");
    const q = await h.adapter.waitFor((o) => o.type === "clarify");
    if (q.type !== "clarify") throw new Error("unreachable");
    expect(q.prompt).toMatchObject({ question: "Your name?", choices: [] });
    await h.adapter.click(clarifyUnansweredActionId(q.prompt.requestId));
    await h.adapter.waitForText("no answer: unavailable");
  });

  it('"none": approvals have no channel and clarify is unavailable, without asking', async () => {
    let approval: unknown = "not asked";
    h = await makeHarness({
      capabilities: { prompts: "none" },
      runner: new ScriptedRunner(async (req, signal) => {
        approval = req.tools.approver.request(
          { command: "rm -r x", category: "recursive delete", description: "recursive delete", allowPermanent: true },
          signal,
        );
        const a = await req.tools.clarifier.ask({ question: "?", choices: ["a"], allowFreeText: false }, signal);
        return completed(req, `clarify: ${a.kind}`);
      }),
    });
    await h.adapter.message("go");
    await h.adapter.waitForText("clarify: unavailable");
    expect(approval).toBeNull();
    expect(h.adapter.of("approval")).toEqual([]);
    expect(h.adapter.of("clarify")).toEqual([]);
  });
});

describe("what a runtime takes over at start", () => {
  function leftBehind() {
    const raw = openStore(":memory:");
    const rs = runtimeStoreOver(raw);
    rs.recordInbound({ platform: "test", eventId: "mine", sessionKey: dmKey(), payload: JSON.stringify(dmEvent("mine", "mine")), receivedAt: Date.now() });
    const other = { ...dmEvent("theirs", "theirs"), chat: { platform: "cli", chatId: "c1", chatType: "dm" as const } };
    rs.recordInbound({ platform: "cli", eventId: "theirs", sessionKey: dmKey("c1", "cli"), payload: JSON.stringify(other), receivedAt: Date.now() });
    return raw;
  }

  it("replays only its own platforms' unfinished events: another process's stay as they are", async () => {
    const raw = leftBehind();
    try {
      const runner = new ScriptedRunner();
      h = await makeHarness({ raw, runner });
      await h.adapter.waitForText("echo: mine");
      await new Promise((r) => setTimeout(r, 100));
      expect(runner.calls.map(inputText)).toEqual(["mine"]);
      expect(raw.inbound.unfinished().map((r) => [r.eventId, r.attempts])).toEqual([["theirs", 0]]);
    } finally {
      await h?.close();
      h = undefined;
      raw.close();
    }
  });

  it("with recover false, takes over nothing: no replay, no redelivery", async () => {
    const raw = leftBehind();
    const adapter = new TestAdapter();
    const runtime = createRuntime({
      config: testConfig(),
      logger: pino({ level: "silent" }),
      store: runtimeStoreOver(raw),
      runner: new ScriptedRunner(),
      adapters: new Map([["test", adapter]]),
      recover: false,
    });
    try {
      await adapter.start(runtime.sink);
      await runtime.start();
      await new Promise((r) => setTimeout(r, 100));
      expect(adapter.log).toEqual([]);
      expect(raw.inbound.unfinished().map((r) => r.eventId)).toEqual(["mine", "theirs"]);
    } finally {
      await runtime.stop("shutdown");
      raw.close();
    }
  });
});

describe("the terminal's owner", () => {
  const config = testConfig({ gateway: { allow_all_users: false } });
  const chat = (platform: string): ChatRef => ({ platform, chatId: "c", chatType: "dm" });
  const sender = (userId: string) => ({ userId, displayName: userId, isBot: false });
  const none = () => false;

  it("is let in on the cli platform by construction, and is nobody special elsewhere", () => {
    const g = { allowedUsers: [], allowAllUsers: false };
    expect(authorize(chat("cli"), sender(TERMINAL_OWNER.userId), platformSettings(config, "cli"), g, none)).toEqual({ ok: true, via: "owner" });
    expect(authorize(chat("cli"), sender("someone"), platformSettings(config, "cli"), g, none)).toEqual({ ok: false });
    expect(authorize(chat("telegram"), sender(TERMINAL_OWNER.userId), platformSettings(config, "telegram"), g, none)).toEqual({ ok: false });
  });
});
