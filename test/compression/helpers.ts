/**
 * A gateway runtime wired for compression exactly as the daemon wires it:
 * the real agent loop and provider stack against the fake LLM server, the
 * real SQLite store, the todo tool, the Compression service in the runner
 * and its `/compress` hook. The fake server tells summary requests (the
 * summarizer's preamble) from conversation requests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { ToolRegistry } from "../../agent/index.js";
import { createStreamFn } from "../../agent/providers/index.js";
import type { ConfigInput } from "../../config/index.js";
import { Compression, compressHook } from "../../gateway/agent-turn/compression.js";
import { createAgentRunner } from "../../gateway/agent-turn/runner.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { createTodoTool } from "../../tools/todo/index.js";
import type { FakeLlmServer, FakeRequest, FakeTurn } from "../fakes/llm-server.js";
import { type Harness, makeHarness, testConfig } from "../runtime/helpers/harness.js";
import { until } from "../wait.js";

export const SUMMARY_MODEL = "summary-model";
export const SUMMARY_TEXT = "## Active Task\nSUMMARY-OF-EARLIER-TURNS";

type Msg = { role: string; content: unknown };

export const messagesOf = (r: FakeRequest): Msg[] => (r.body?.messages ?? []) as Msg[];
export const textOf = (m: Msg | undefined): string => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? ""));
export const isSummaryRequest = (r: FakeRequest): boolean => textOf(messagesOf(r)[0]).includes("summarization agent");
/** Conversation (not summary) requests, in order. */
export const mainRequests = (llm: FakeLlmServer): FakeRequest[] => llm.completions().filter((r) => !isSummaryRequest(r));
export const summaryRequests = (llm: FakeLlmServer): FakeRequest[] => llm.completions().filter(isSummaryRequest);
/** How many times `needle` occurs in the request's messages. */
export const occurrences = (r: FakeRequest, needle: string): number => JSON.stringify(messagesOf(r)).split(needle).length - 1;

/** "msg-3 " followed by filler words up to `chars` characters (≈ chars/4 tokens). */
export function longMessage(n: number, chars: number): string {
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];
  let text = `msg-${n}`;
  for (let i = 0; text.length < chars; i++) text += ` ${words[i % words.length]}${i}`;
  return text;
}

export const PLAN = { id: "1", content: "Write the quarterly report", status: "in_progress" };

/**
 * Summary requests get SUMMARY_TEXT (or `summary`); a user message containing
 * PLAN makes the model call the todo tool; after a tool result it says
 * "planned"; otherwise it acknowledges the newest "msg-N" of the last user message.
 */
export function conversationResponder(summary: (r: FakeRequest) => FakeTurn = () => ({ text: SUMMARY_TEXT })) {
  return (r: FakeRequest): FakeTurn => {
    if (isSummaryRequest(r)) return summary(r);
    const last = messagesOf(r).at(-1);
    const text = textOf(last);
    if (last?.role === "tool") return { text: "planned" };
    if (text.includes("PLAN")) return { toolCalls: [{ id: "call_todo", name: "todo", arguments: { todos: [PLAN] } }] };
    const tags = [...text.matchAll(/msg-(\d+)/g)];
    return { text: `ack msg-${tags.at(-1)?.[1] ?? "?"}` };
  };
}

export interface CompressionHarness {
  readonly h: Harness;
  readonly raw: Store;
  readonly compression: Compression;
  close(): Promise<void>;
}

/** `contextLength` sets model.context_length; `config` is merged over the compression defaults. */
export async function compressionHarness(llm: FakeLlmServer, contextLength: number, config: ConfigInput = {}): Promise<CompressionHarness> {
  const home = mkdtempSync(join(tmpdir(), "hgw-compress-"));
  const model = {
    provider: "custom",
    model: "fake-model",
    base_url: llm.openaiBaseUrl,
    api_key: "k",
    api_mode: "chat_completions" as const,
    context_length: contextLength,
  };
  const input: ConfigInput = { ...config, model, auxiliary: { compression: { model: SUMMARY_MODEL } }, agent: { tool_progress: "off", ...config.agent } };
  const cfg = testConfig(input, home);
  const registry = new ToolRegistry();
  registry.register({ ...createTodoTool(), toolset: "hermes-test" });
  const providers = createStreamFn(cfg, { home, logger: pino({ level: "silent" }) });
  const compression = new Compression({ config: cfg, auxiliary: providers.auxiliary, contextLength: (model) => providers.contextLengthFor(model) });
  const runner = createAgentRunner({ config: cfg, stream: providers.stream, tools: async (ts) => registry.view(ts), compression });
  const raw = openStore(":memory:");
  const h = await makeHarness({ runner, raw, config: input, hooks: { compress: compressHook(compression, raw) } });
  return {
    h,
    raw,
    compression,
    async close() {
      await h.close();
      raw.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Sends `text` as alice, waits for the reply containing `reply`, then for the turn's commit (replies go out first). */
export async function say(h: Harness, text: string, reply: string | RegExp): Promise<string> {
  await h.adapter.message(text);
  const sent = (await h.adapter.waitForText(reply)).opts.text;
  await settle(h);
  return sent;
}

/** Waits until every inbound event is finished (committed) and no turn is running or still delivering its reply. */
export async function settle(h: Harness, timeoutMs = 5_000): Promise<void> {
  const idle = () => h.store.unfinishedInbound().length === 0 && h.runtime.stats().activeTurns === 0 && h.runtime.stats().queued === 0;
  await until(idle, "every inbound event to finish", timeoutMs, 5);
}
