/**
 * Delivery beyond the reply, through the real runtime and store with the
 * test adapter: files named in a final reply, send_message's targets and
 * refusals, home channels and the one-time /sethome notice.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Messenger } from "../../agent/types.js";
import { createReplyAttachments, REPLY_MEDIA_TEXT } from "../../gateway/media/index.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { createApprovalPolicy } from "../../tools/approval/index.js";
import { createWebTools } from "../../tools/web/index.js";
import { TestAdapter } from "../fakes/test-adapter.js";
import { type Harness, makeHarness, testConfig } from "./helpers/harness.js";
import { completed, ScriptedRunner } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "hgw-delivery-"));
});
const web = createWebTools(testConfig().web);
afterAll(() => web.close());
afterEach(async () => {
  await h?.close();
  h = undefined;
  await rm(dir, { recursive: true, force: true });
});

function attachments() {
  const policy = createApprovalPolicy({ approvals: testConfig().approvals });
  return createReplyAttachments({ exportRefusal: (p) => policy.exportRefusal(p), get: web.get, cacheDir: join(dir, "cache") });
}

describe("files named in a final reply", () => {
  it("go out as attachments of the reply, with a note for a missing one", async () => {
    const png = join(dir, "chart.png");
    await writeFile(png, "png");
    const runner = new ScriptedRunner(async (req) => completed(req, `Here is the chart.\nMEDIA:${png}\nMEDIA:${join(dir, "gone.pdf")}`));
    h = await makeHarness({ runner, attachments: attachments() });
    await h.adapter.message("draw it");
    const sent = (await h.adapter.waitFor((o) => o.type === "send" && (o.opts.media?.length ?? 0) > 0)) as Extract<
      (typeof h.adapter.log)[number],
      { type: "send" }
    >;
    expect(sent.opts.media).toEqual([{ path: png, kind: "image" }]);
    expect(sent.opts.text).toBe(`Here is the chart.\n\n${REPLY_MEDIA_TEXT.missing(join(dir, "gone.pdf"))}`);
    expect(sent.opts.answers).toEqual(["in-ev1"]);
    // The stored history keeps the agent's text as it wrote it.
    const history = h.store.loadHistory(h.store.getRoute("agent:main:test:dm:alice")!.sessionId);
    expect(history.at(-1)?.message.content).toContain("MEDIA:");
  });

  it("a streamed reply with files drops its preview and goes out whole, once", async () => {
    const png = join(dir, "chart.png");
    await writeFile(png, "png");
    const text = `Done: MEDIA:${png}`;
    const runner = new ScriptedRunner(async (req) => {
      req.emit({ type: "text_delta", delta: text });
      return completed(req, text);
    });
    h = await makeHarness({ runner, attachments: attachments(), adapter: new TestAdapter("test").enableStreaming() });
    await h.adapter.message("draw it");
    await h.adapter.waitFor((o) => o.type === "send" && (o.opts.media?.length ?? 0) > 0);
    expect(h.adapter.of("stream_discard")).toHaveLength(1);
    expect(h.adapter.of("stream_finish")).toEqual([]);
    expect(h.adapter.sends().map((s) => [s.opts.text, s.opts.media?.length])).toEqual([["Done:", 1]]);
  });

  it("a reply naming no file is streamed as before", async () => {
    const runner = new ScriptedRunner(async (req) => {
      req.emit({ type: "text_delta", delta: "plain answer" });
      return completed(req, "plain answer");
    });
    h = await makeHarness({ runner, attachments: attachments(), adapter: new TestAdapter("test").enableStreaming() });
    await h.adapter.message("hi");
    await h.adapter.waitFor((o) => o.type === "stream_finish");
    expect(h.adapter.sends()).toEqual([]);
  });
});

/** A runner whose turns hand their messenger to the test and answer "ok". */
function messengerRunner(): { runner: ScriptedRunner; messengers: Messenger[] } {
  const messengers: Messenger[] = [];
  const runner = new ScriptedRunner(async (req) => {
    if (req.tools.messenger) messengers.push(req.tools.messenger);
    return completed(req, "ok");
  });
  return { runner, messengers };
}

async function messengerOf(h: Harness, messengers: Messenger[], user = "alice"): Promise<Messenger> {
  await h.adapter.message({ text: "hi", user });
  await h.adapter.waitForText("ok", user);
  return messengers.at(-1) as Messenger;
}

const TELEGRAM = { gateway: { platforms: { telegram: { allowed_users: ["alice", "bob"], group_allowed_chats: ["-100200"] } } } };

describe("send_message", () => {
  it("lists and sends to the chats the configuration allows, and to no other", async () => {
    const { runner, messengers } = messengerRunner();
    h = await makeHarness({ runner, platform: "telegram", config: TELEGRAM });
    const m = await messengerOf(h, messengers);
    expect(m.targets()).toEqual([
      { target: "origin", description: "this chat" },
      { target: "telegram:-100200", description: "allowed group" },
      { target: "telegram:bob", description: "allowed user (DM)" },
    ]);
    const signal = AbortSignal.timeout(5000);
    expect(await m.send("telegram:bob", "hello Bob", signal)).toEqual({ ok: true, target: "telegram:bob", messageIds: [expect.any(String)] });
    expect(await m.send("Telegram:-100200:7", "to a topic", signal)).toMatchObject({ ok: true, target: "telegram:-100200:7" });
    expect(await m.send("origin", "back here", signal)).toMatchObject({ ok: true, target: "telegram:alice" });
    expect(h.adapter.sends("bob").map((s) => s.opts.text)).toEqual(["hello Bob"]);
    expect(h.adapter.sends("-100200").map((s) => [s.chat.threadId, s.opts.text])).toEqual([["7", "to a topic"]]);

    const refused = await m.send("telegram:mallory", "psst", signal);
    expect(refused).toMatchObject({ ok: false, error: expect.stringContaining("not one the configuration allows") });
    expect(await m.send("telegram", "home?", signal)).toMatchObject({ ok: false, error: expect.stringContaining("/sethome") });
    expect(await m.send("nowhere", "x", signal)).toMatchObject({ ok: false, error: expect.stringContaining('"nowhere" names no chat') });
    expect(h.adapter.sends("mallory")).toEqual([]);
  });

  it("reaches the home channel set with /sethome, and one set in the configuration", async () => {
    const { runner, messengers } = messengerRunner();
    h = await makeHarness({ runner, platform: "telegram", config: { gateway: { platforms: { telegram: { home_channel: "-100999:3" } } } } });
    const m = await messengerOf(h, messengers);
    expect(await m.send("telegram", "to the configured home", AbortSignal.timeout(5000))).toMatchObject({ ok: true, target: "telegram:-100999:3" });
    await h.adapter.message({ text: "/sethome", user: "bob" });
    await h.adapter.waitForText(TEXT.homeSet("bob"), "bob");
    expect(await m.send("telegram", "to the new home", AbortSignal.timeout(5000))).toMatchObject({ ok: true, target: "telegram:bob" });
    expect(h.adapter.texts("bob")).toContain("to the new home");
  });

  it("is refused cleanly when the platform is not connected", async () => {
    const { runner, messengers } = messengerRunner();
    h = await makeHarness({ runner, platform: "telegram", config: TELEGRAM });
    const m = await messengerOf(h, messengers);
    await h.adapter.stop();
    expect(await m.send("telegram:bob", "hello", AbortSignal.timeout(5000))).toMatchObject({ ok: false, error: expect.stringContaining("not connected") });
    expect(m.targets().find((t) => t.target === "telegram:bob")?.description).toBe("allowed user (DM) (not connected now)");
    await h.adapter.start(h.runtime.sink);
  });
});

describe("the one-time home-channel notice", () => {
  it("comes with the first session on a platform without a home channel, and never again", async () => {
    h = await makeHarness({ platform: "telegram" });
    await h.adapter.message({ text: "hi", user: "alice" });
    await h.adapter.waitForText("echo: hi", "alice");
    await h.adapter.message({ text: "hello", user: "bob" });
    await h.adapter.waitForText("echo: hello", "bob");
    await h.adapter.message({ text: "/new", user: "alice" });
    await h.adapter.message({ text: "again", user: "alice" });
    await h.adapter.waitForText("echo: again", "alice");
    expect(h.adapter.texts().filter((t) => t === TEXT.noHomeChannel("telegram"))).toHaveLength(1);
    expect(h.adapter.texts("alice")).toContain(TEXT.noHomeChannel("telegram"));
    expect(TEXT.noHomeChannel("telegram")).toContain("No home channel is set for Telegram.");
  });

  it("is not given where a home channel is configured, nor on the HTTP API", async () => {
    h = await makeHarness({ platform: "telegram", config: { gateway: { platforms: { telegram: { home_channel: "42" } } } } });
    await h.adapter.message("hi");
    await h.adapter.waitForText("echo: hi");
    await h.close();
    h = await makeHarness({ platform: "api" });
    await h.adapter.message("hi");
    await h.adapter.waitForText("echo: hi");
    expect(h.adapter.texts()).toEqual(["echo: hi"]);
  });
});
