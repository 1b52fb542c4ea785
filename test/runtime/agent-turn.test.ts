import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { approvalActionId } from "../../adapters/types.js";
import { STEER_MARKER_OPEN } from "../../agent/index.js";
import type { ToolDefinition } from "../../agent/types.js";
import type { ConfigInput } from "../../config/index.js";
import { BUSY_ACK } from "../../gateway/runtime/texts.js";
import { until } from "../e2e/helpers.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { agentHarness } from "./helpers/agent-harness.js";
import type { Harness } from "./helpers/harness.js";
import { wait } from "./helpers/scripted-runner.js";

let llm: FakeLlmServer;
let h: Harness | undefined;
beforeEach(async () => {
  llm = await startFakeLlmServer();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await llm.close();
});

const tool = (name: string, execute: ToolDefinition["execute"]): ToolDefinition => ({
  name,
  toolset: "hermes-test",
  schema: { name, description: `${name} tool`, parameters: { type: "object", properties: { command: { type: "string" } } } },
  execute,
});

const TOOLS: readonly ToolDefinition[] = [
  tool("get_time", async () => JSON.stringify({ time: "12:00" })),
  tool("slow_tool", async (_a, _c, signal) => ((await wait(300, signal)) ? '{"ok":true}' : '{"interrupted":true}')),
  tool("danger", async (args, ctx, signal) => {
    const d = await ctx.approver.request(
      { command: String(args.command), category: "recursive delete", description: "recursive delete", allowPermanent: true },
      signal,
    );
    return JSON.stringify({ ran: d?.choice === "once" || d?.choice === "session" || d?.choice === "always", decision: d?.choice });
  }),
];

const agentTurns = (config: ConfigInput = {}) => agentHarness(llm.openaiBaseUrl, TOOLS, { config });

describe("turns through the real agent loop and the fake LLM server", () => {
  it("holds a conversation with a tool call, shows progress, and stores the whole exchange", async () => {
    llm.enqueue({ toolCalls: [{ id: "call_1", name: "get_time", arguments: {} }] }, { text: "It is noon." });
    h = await agentTurns();
    await h.adapter.message("what time is it?");
    await h.adapter.waitForText("It is noon.");
    expect(h.adapter.texts()).toEqual(["⚙️ get_time", "It is noon."]);
    const req = llm.completions()[0]?.body as { messages: { role: string; content: string }[]; tools: { function: { name: string } }[] };
    expect(req.messages[0]?.role).toBe("system");
    expect(req.messages[0]?.content).toContain("Current Session Context");
    expect(req.tools.map((t) => t.function.name).sort()).toEqual(["danger", "get_time", "slow_tool"]);
    await wait(20, new AbortController().signal);
    const store = h.store;
    const [session] = h.raw.sessions.list();
    expect(store.loadHistory(session!.id).map((r) => r.message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(store.unfinishedInbound()).toHaveLength(0);
  });

  it("never shows a <memory-context> block the model echoed in a reply sent whole; the history keeps the answer as written", async () => {
    llm.enqueue({ text: "Tea it is.<memory-context>\nUser likes tea\n</memory-context>" }, { text: "<memory-context>only the block</memory-context>" });
    h = await agentTurns();
    await h.adapter.message("what do I like?");
    await h.adapter.waitForText("Tea it is.");
    expect(h.adapter.texts()).toEqual(["Tea it is."]);
    await h.adapter.message("and now?");
    await until(() => h!.store.unfinishedInbound().length === 0, "the second turn to finish");
    await wait(50, new AbortController().signal);
    // A reply that was nothing but the block says nothing.
    expect(h.adapter.texts()).toEqual(["Tea it is."]);
    const [session] = h.raw.sessions.list();
    expect(h.store.loadHistory(session!.id).map((r) => r.message.content)[1]).toContain("User likes tea");
  });

  it("steers a message into the running loop's next tool result", async () => {
    llm.enqueue({ toolCalls: [{ id: "call_1", name: "slow_tool", arguments: {} }] }, { text: "Adjusted." });
    h = await agentTurns({ gateway: { busy_input_mode: "steer" }, agent: { tool_progress: "off" } });
    await h.adapter.message("start");
    await llm.waitForRequests(1);
    await wait(50, new AbortController().signal);
    await h.adapter.message("use the blue one");
    await h.adapter.waitForText(BUSY_ACK.steer);
    const reply = await h.adapter.waitForText("Adjusted.");
    expect(reply.opts.answers).toEqual(["in-ev1", "in-ev2"]);
    const second = JSON.stringify(llm.completions()[1]?.body.messages);
    expect(second).toContain(STEER_MARKER_OPEN.slice(0, 20));
    expect(second).toContain("use the blue one");
  });

  it("asks for approval from inside a tool and runs it once approved", async () => {
    llm.enqueue({ toolCalls: [{ id: "call_1", name: "danger", arguments: { command: "rm -rf build" } }] }, { text: "Cleaned." });
    h = await agentTurns();
    await h.adapter.message("clean the build");
    const p = await h.adapter.waitFor((o) => o.type === "approval");
    if (p.type !== "approval") throw new Error("unreachable");
    expect(p.prompt.command).toBe("rm -rf build");
    await h.adapter.click(approvalActionId(p.prompt.requestId, "once"));
    await h.adapter.waitForText("Cleaned.");
    const toolMsg = (llm.completions()[1]?.body.messages as { role: string; content: string }[]).find((m) => m.role === "tool");
    expect(toolMsg?.content).toContain('"ran":true');
  });
});
