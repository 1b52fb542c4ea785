import { afterEach, describe, expect, it } from "vitest";
import { AdapterSendError } from "../../adapters/types.js";
import type { TurnRequest } from "../../gateway/runtime/ports.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { type Harness, makeHarness } from "./helpers/harness.js";
import { aborted, completed, type Script, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const never = new AbortController().signal;
/** Progress lines are separate sends; these tests are about the reply alone. */
const quiet = { agent: { tool_progress: "off" as const } };

function deltas(req: TurnRequest, parts: readonly string[]): void {
  for (const delta of parts) req.emit({ type: "text_delta", delta });
}

/** Two model calls with a tool call between them, then the final answer. */
const twoCalls: Script = async (req) => {
  deltas(req, ["Let me ", "check."]);
  req.emit({ type: "tool_start", toolName: "terminal", preview: "ls" });
  req.emit({ type: "tool_end", toolName: "terminal", isError: false });
  deltas(req, ["Found ", "3 files", "<memory-context>secret</memory-context>", "."]);
  return completed(req, "Found 3 files.");
};

/** Streams some text, then waits until aborted. */
const streamsThenHangs: Script = async (req, signal) => {
  deltas(req, ["half ", "an answer"]);
  await wait(10_000, signal);
  return aborted(req);
};

describe("streamed replies", () => {
  it("updates one preview and delivers the final text through finish, with no separate send", async () => {
    h = await makeHarness({ runner: new ScriptedRunner(twoCalls), config: quiet });
    h.adapter.enableStreaming();
    await h.adapter.message("list files");
    const fin = await h.adapter.waitFor((o) => o.type === "stream_finish");
    await wait(30, never);
    const updates = h.adapter.of("stream_update").map((u) => u.text);
    expect(updates).toContain("Let me check.");
    // The second model call's text replaces the first; the echoed memory block never shows.
    expect(updates.at(-1)).toBe("Found 3 files.");
    expect(updates.some((t) => t.includes("secret") || t.includes("memory-context"))).toBe(false);
    expect(h.adapter.of("stream_finish")).toHaveLength(1);
    expect(fin.type === "stream_finish" && fin.text).toBe("Found 3 files.");
    expect(h.adapter.sends()).toHaveLength(0);
    expect(h.adapter.of("stream_discard")).toHaveLength(0);
  });

  it("discards the preview of an interrupted turn and never finishes it", async () => {
    h = await makeHarness({ runner: new ScriptedRunner(streamsThenHangs), config: { gateway: { busy_ack: false } } });
    h.adapter.enableStreaming();
    await h.adapter.message("go");
    await h.adapter.waitFor((o) => o.type === "stream_update" && o.text === "half an answer");
    await h.adapter.message("/stop");
    await h.adapter.waitForText(TEXT.stopped);
    await h.adapter.waitFor((o) => o.type === "stream_discard");
    await wait(50, never);
    expect(h.adapter.of("stream_finish")).toHaveLength(0);
    expect(h.adapter.texts()).toEqual([TEXT.stopped]);
  });

  it("sends normally when the adapter cannot stream", async () => {
    h = await makeHarness({ runner: new ScriptedRunner(twoCalls), config: quiet });
    await h.adapter.message("list files");
    await h.adapter.waitForText("Found 3 files.");
    await wait(30, never);
    expect(h.adapter.texts()).toEqual(["Found 3 files."]);
    expect(h.adapter.of("stream_update")).toHaveLength(0);
  });

  it("sends normally when the adapter has a stream but does not declare streams (streaming switched off)", async () => {
    h = await makeHarness({ runner: new ScriptedRunner(twoCalls), config: quiet, capabilities: { streams: false } });
    h.adapter.enableStreaming();
    await h.adapter.message("list files");
    await h.adapter.waitForText("Found 3 files.");
    expect(h.adapter.of("stream_update")).toHaveLength(0);
    expect(h.adapter.of("stream_finish")).toHaveLength(0);
  });
  it("a final text that cannot be delivered removes its preview before the delivery-failed notice", async () => {
    h = await makeHarness({ runner: new ScriptedRunner(twoCalls), config: quiet });
    h.adapter.enableStreaming();
    h.adapter.finishFailures.push(new AdapterSendError("message to edit not found", "rejected"));
    await h.adapter.message("list files");
    await h.adapter.waitForText(TEXT.deliveryFailed);
    const kinds = h.adapter.log.map((o) => o.type).filter((t) => t !== "stream_update" && t !== "typing");
    expect(kinds).toEqual(["stream_discard", "send"]);
  });

  it("a turn that fails outside the agent removes its preview before the error reply", async () => {
    const broken: Script = async (req) => {
      deltas(req, ["half ", "an answer"]);
      return { ...completed(req, "unused"), finalText: 42 as unknown as string }; // a runner breaking its contract
    };
    h = await makeHarness({ runner: new ScriptedRunner(broken), config: quiet });
    h.adapter.enableStreaming();
    await h.adapter.message("go");
    await h.adapter.waitFor((o) => o.type === "send");
    const kinds = h.adapter.log.map((o) => o.type).filter((t) => t !== "stream_update" && t !== "typing");
    expect(kinds).toEqual(["stream_discard", "send"]);
    expect(h.adapter.texts()).toEqual([TEXT.turnFailed("internal error (see the gateway log)")]);
  });

  it("discarding after a delivered finish leaves the reply alone", async () => {
    h = await makeHarness({ runner: new ScriptedRunner(twoCalls), config: quiet });
    h.adapter.enableStreaming();
    const handle = h.adapter.startStream!(h.adapter.chatOf({ user: "x" }));
    handle.update("hello");
    await handle.finish("hello, done");
    await handle.discard!();
    expect(h.adapter.of("stream_discard")).toHaveLength(0);
  });
});
