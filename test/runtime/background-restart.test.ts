/**
 * /background, /status's background lines, /restart and the restart notice,
 * through the real runtime and store with the test adapter.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { TEXT } from "../../gateway/runtime/texts.js";
import { openStore } from "../../gateway/store/index.js";
import { type Harness, makeHarness } from "./helpers/harness.js";
import { completed, inputText, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Turns on "slow …" prompts wait until `release` is called; others echo. */
function gatedRunner() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const runner = new ScriptedRunner(async (req, signal) => {
    const text = inputText(req);
    if (text.startsWith("slow")) {
      await Promise.race([gate, new Promise((r) => signal.addEventListener("abort", r, { once: true }))]);
      if (signal.aborted) return { status: "aborted", finalText: null, messages: [req.input], usage: completed(req, "").usage };
      return completed(req, `finished ${text}`);
    }
    return completed(req, `echo: ${text}`);
  });
  return { runner, release: () => release() };
}

describe("/background", () => {
  it("runs the prompt in a session of its own, lets the chat go on, and posts the result when done", async () => {
    const { runner, release } = gatedRunner();
    h = await makeHarness({ runner, platform: "telegram", config: { gateway: { platforms: { telegram: { home_channel: "1" } } } } });
    await h.adapter.message("/background slow report on the disks");
    const ack = await h.adapter.waitForText("Background task started");
    const id = /Task ID: (bg_[0-9a-f]{8})/.exec(ack.opts.text)?.[1] as string;
    expect(ack.opts.text).toBe(TEXT.backgroundStarted("slow report on the disks", id));
    await h.adapter.message("meanwhile");
    await h.adapter.waitForText("echo: meanwhile");
    await h.adapter.message("/status");
    const status = await h.adapter.waitForText("Hermes status");
    expect(status.opts.text).toContain(`Background: 1 running`);
    expect(status.opts.text).toContain(`task ${id}: "slow report on the disks"`);
    release();
    await h.adapter.waitForText(TEXT.backgroundDone(id, "finished slow report on the disks"));
    const bg = runner.calls.find((c) => inputText(c).startsWith("slow"))!;
    expect(bg.sessionKey).toBe(`background:telegram:${id}`);
    expect(bg.platform).toBe("telegram");
    const chatSession = h.store.getRoute("agent:main:telegram:dm:alice")!.sessionId;
    expect(bg.sessionId).not.toBe(chatSession);
    expect(h.store.getSession(bg.sessionId)?.messageCount).toBe(2);
  });

  it("says how to use it without a prompt, and tells an interrupted task at a stop", async () => {
    const { runner } = gatedRunner();
    h = await makeHarness({ runner, config: { gateway: { drain_timeout_s: 0.1 } } });
    await h.adapter.message("/bg");
    await h.adapter.waitForText(TEXT.backgroundUsage);
    await h.adapter.message("/bg slow forever");
    const ack = await h.adapter.waitForText("Task ID");
    const id = /Task ID: (bg_\w+)/.exec(ack.opts.text)?.[1] as string;
    await wait(50, new AbortController().signal);
    await h.runtime.stop("shutdown");
    expect(h.adapter.texts()).toContain(TEXT.backgroundInterrupted(id));
  });
});

describe("/restart", () => {
  it("is refused to someone an open bot lets in", async () => {
    let restarts = 0;
    h = await makeHarness({ hooks: { restart: () => void restarts++ } });
    await h.adapter.message("/restart");
    await h.adapter.waitForText(TEXT.restartRefused);
    expect(restarts).toBe(0);
  });

  it("restarts for an allowlisted user, and the next start says so once, in the home channel and the chat that asked", async () => {
    const raw = openStore(":memory:");
    try {
      let restarts = 0;
      const config = { gateway: { allow_all_users: false, platforms: { telegram: { allowed_users: ["alice", "bob"] } } } };
      h = await makeHarness({ raw, platform: "telegram", config, hooks: { restart: () => void restarts++ } });
      await h.adapter.message({ text: "/sethome", user: "bob" });
      await h.adapter.waitForText(TEXT.homeSet("bob"));
      await h.adapter.message("/restart");
      await h.adapter.waitForText(TEXT.restartStarted);
      await vi.waitFor(() => expect(restarts).toBe(1));
      await h.close();

      h = await makeHarness({ raw, platform: "telegram", config });
      await h.adapter.waitForText(TEXT.restarted, "bob");
      await h.adapter.waitForText(TEXT.restarted, "alice");
      await h.close();

      h = await makeHarness({ raw, platform: "telegram", config });
      // A fresh adapter numbers its events from 1 again: this one needs an id of its own (ev1 was /sethome's).
      await h.adapter.message({ text: "hi", user: "bob", eventId: "later" });
      await h.adapter.waitForText("echo: hi");
      expect(h.adapter.texts()).not.toContain(TEXT.restarted);
    } finally {
      await h?.close();
      h = undefined;
      raw.close();
    }
  });

  it("a restart by signal is announced in the home channel; with restart_notification off, nowhere", async () => {
    for (const notify of [true, false]) {
      const raw = openStore(":memory:");
      try {
        const config = { gateway: { restart_notification: notify, platforms: { telegram: { home_channel: "ops" } } } };
        h = await makeHarness({ raw, platform: "telegram", config });
        await h.runtime.stop("restart");
        await h.close();
        h = await makeHarness({ raw, platform: "telegram", config });
        await h.adapter.message({ text: "hi", eventId: "later" });
        await h.adapter.waitForText("echo: hi");
        expect(h.adapter.texts("ops")).toEqual(notify ? [TEXT.restarted] : []);
      } finally {
        await h?.close();
        h = undefined;
        raw.close();
      }
    }
  });
});
