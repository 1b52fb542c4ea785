/**
 * delegate_task end to end in the gateway runtime: a Telegram-like chat, the
 * real agent loop and provider stack against the fake LLM server, children
 * on the same stream. The person sees the children's tool calls as progress
 * lines, the parent's model reads their summaries, and their sessions are
 * stored linked to the chat's session.
 */
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../agent/index.js";
import { createStreamFn } from "../../agent/providers/index.js";
import type { ToolDefinition } from "../../agent/types.js";
import { childSessionsOver, createSubagentRunner } from "../../gateway/agent-turn/delegation.js";
import { createAgentRunner } from "../../gateway/agent-turn/runner.js";
import { openStore } from "../../gateway/store/index.js";
import { createDelegateTool } from "../../tools/delegate/index.js";
import { type FakeLlmServer, type FakeRequest, startFakeLlmServer } from "../fakes/llm-server.js";
import { type Harness, makeHarness, testConfig } from "./helpers/harness.js";

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

const lookup: ToolDefinition = {
  name: "lookup",
  toolset: "hermes-test",
  schema: { name: "lookup", description: "Look something up.", parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
  parallelSafe: true,
  execute: async (args) => JSON.stringify({ answer: `${String(args["q"])} is 42` }),
};

type Msg = { role: string; content: string | null };
const messagesOf = (req: FakeRequest) => (req.body as { messages: Msg[] }).messages;
const systemOf = (req: FakeRequest) => messagesOf(req)[0]?.content ?? "";
const lastRole = (req: FakeRequest) => messagesOf(req).at(-1)?.role;

async function delegationHarness(): Promise<Harness> {
  const config = {
    model: { provider: "custom", model: "fake-model", base_url: llm.openaiBaseUrl, api_key: "k", api_mode: "chat_completions" as const },
    platform_toolsets: { test: ["hermes-test", "delegation"] },
    agent: { tool_progress: "all" as const },
  };
  const cfg = testConfig(config);
  const raw = openStore(":memory:");
  const registry = new ToolRegistry();
  const providers = createStreamFn(cfg, { home: "/tmp", logger: pino({ level: "silent" }) });
  registry.register(lookup);
  registry.register(
    createDelegateTool({
      config: cfg.delegation,
      runner: createSubagentRunner({ config: cfg, stream: providers.stream, view: (ts) => registry.view(ts), sessions: childSessionsOver(raw) }),
    }),
  );
  const runner = createAgentRunner({ config: cfg, stream: providers.stream, tools: (ts) => registry.view(ts) });
  return makeHarness({ runner, config, raw });
}

describe("delegation in a gateway turn", () => {
  it("children work on the same stream, show progress, report summaries and are stored under the chat's session", async () => {
    llm.respondWith((req) => {
      const system = systemOf(req);
      const child = /YOUR TASK:\n(.*)\n/.exec(system)?.[1];
      if (child) return lastRole(req) === "tool" ? { text: `Summary: ${child} is 42.` } : { toolCalls: [{ name: "lookup", arguments: { q: child } }] };
      if (lastRole(req) === "tool") return { text: "Both answers are 42." };
      return { toolCalls: [{ name: "delegate_task", arguments: { tasks: [{ goal: "the answer" }, { goal: "the question" }] } }] };
    });
    h = await delegationHarness();
    await h.adapter.message("research two things in parallel");
    await h.adapter.waitForText("Both answers are 42.");

    const texts = h.adapter.texts();
    expect(texts[0]).toBe("⚙️ delegate_task");
    expect(texts).toEqual(
      expect.arrayContaining(["⚙️ [1] subagent: the answer", "⚙️ [2] subagent: the question", "⚙️ [1] lookup: the answer", "⚙️ [2] lookup: the question"]),
    );
    expect(texts.at(-1)).toBe("Both answers are 42.");

    const final = llm.completions().find((r) => !systemOf(r).includes("YOUR TASK") && lastRole(r) === "tool")!;
    const toolResult = JSON.parse(messagesOf(final).at(-1)!.content!) as { results: { summary: string; session_id: string }[] };
    expect(toolResult.results.map((r) => r.summary)).toEqual(["Summary: the answer is 42.", "Summary: the question is 42."]);

    const [parent] = h.raw.sessions.list({ source: "test" });
    const children = h.raw.sessions.children(parent!.id);
    expect(children.map((c) => c.id).sort()).toEqual(toolResult.results.map((r) => r.session_id).sort());
    for (const c of children) expect(h.raw.messages.loadConversation(c.id).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });
});
