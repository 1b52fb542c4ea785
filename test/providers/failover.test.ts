import { afterEach, describe, expect, it } from "vitest";
import { anthropicMessagesStream } from "../../agent/providers/anthropic-messages.js";
import { chatCompletionsStream } from "../../agent/providers/chat-completions.js";
import { classifyError, REASON_FLAGS } from "../../agent/resilience/classify.js";
import { CredentialPool } from "../../agent/resilience/credential-pool.js";
import { nextStep, PROVIDER_BACKOFF, type ResilienceTarget, type RetryInfo, withResilience } from "../../agent/resilience/failover.js";
import type { ClassifiedError, Clock, Message, ModelTarget, RequestRepair } from "../../agent/types.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { connection, doneMessage, FakeClock, request, run, terminal } from "./support.js";

const servers: FakeLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function server() {
  const s = await startFakeLlmServer();
  servers.push(s);
  return s;
}

function openaiTarget(llm: FakeLlmServer, clock: Clock, keys = ["sk-a"], maxRetries = 3): ResilienceTarget {
  const target: ModelTarget = { provider: "openai", model: "gpt-4o", apiMode: "chat_completions", baseUrl: llm.openaiBaseUrl, contextLength: 128_000 };
  return {
    target,
    maxRetries,
    pool: new CredentialPool({ provider: "openai", keys, strategy: "fill_first", clock }),
    connect: (cred) => chatCompletionsStream(connection(llm.openaiBaseUrl, { provider: "openai", apiKey: cred.apiKey, clock })),
  };
}

function anthropicTarget(llm: FakeLlmServer, clock: Clock, maxRetries = 3): ResilienceTarget {
  const target: ModelTarget = {
    provider: "anthropic",
    model: "claude-test-4",
    apiMode: "anthropic_messages",
    baseUrl: llm.anthropicBaseUrl,
    contextLength: 200_000,
  };
  return {
    target,
    maxRetries,
    pool: new CredentialPool({ provider: "anthropic", keys: ["sk-ant"], strategy: "fill_first", clock }),
    connect: (cred) => anthropicMessagesStream(connection(llm.anthropicBaseUrl, { provider: "anthropic", apiKey: cred.apiKey, clock })),
  };
}

const hi: Message[] = [{ role: "user", content: "hi" }];
const noJitter = { random: () => 0 };

describe("withResilience", () => {
  it("retries a 429 after exactly the retry-after delay (fake clock)", async () => {
    const llm = await server();
    llm.enqueue({ status: 429, headers: { "retry-after": "2" }, message: "Rate limit exceeded" }, { text: "ok" });
    const clock = new FakeClock({ instant: true });
    const retries: RetryInfo[] = [];
    const stream = withResilience([openaiTarget(llm, clock)], { clock, onRetry: (r) => retries.push(r) });
    expect(doneMessage(await run(stream, request(hi))).content).toBe("ok");
    expect(clock.sleeps).toEqual([2000]);
    expect(retries.map((r) => [r.attempt, r.delayMs, r.error.reason, r.credential])).toEqual([[1, 2000, "rate_limit", "openai#1"]]);
    expect(llm.completions()).toHaveLength(2);
  });

  it("retries a 500 with jittered backoff, then gives up after maxRetries", async () => {
    const llm = await server();
    llm.enqueue({ status: 500, message: "boom" }, { text: "recovered" });
    const clock = new FakeClock({ instant: true });
    const stream = withResilience([openaiTarget(llm, clock, ["sk-a"], 2)], { clock, ...noJitter });
    expect(doneMessage(await run(stream, request(hi))).content).toBe("recovered");
    expect(clock.sleeps).toEqual([5000]);

    llm.enqueue({ status: 500 }, { status: 502 }, { status: 500 });
    const end = terminal(await run(stream, request(hi)));
    expect(end).toMatchObject({ type: "error", error: { reason: "server_error" } });
    expect(clock.sleeps).toEqual([5000, 5000, 10_000]);
    expect(llm.completions()).toHaveLength(5);
  });

  it("rotates to the second key on a 401, at once, and cools the first down for 5 minutes", async () => {
    const llm = await startFakeLlmServer({ acceptKeys: ["sk-good"] });
    servers.push(llm);
    llm.enqueue({ text: "authorised" });
    const clock = new FakeClock({ instant: true });
    const t = openaiTarget(llm, clock, ["sk-bad", "sk-good"]);
    const stream = withResilience([t], { clock });
    expect(doneMessage(await run(stream, request(hi))).content).toBe("authorised");
    expect(llm.completions().map((r) => r.apiKey)).toEqual(["sk-bad", "sk-good"]);
    expect(clock.sleeps).toEqual([]);
    expect(t.pool.snapshot()[0]).toMatchObject({ available: false, lastReason: "auth", exhaustedUntil: clock.now() + 300_000 });
  });

  it("402 billing: no retry, cools the key for an hour and falls back to the next provider", async () => {
    const a = await server();
    const b = await server();
    a.enqueue({ status: 402, message: "Insufficient credits. Add more credits to continue." });
    b.enqueue({ text: "from anthropic" });
    const clock = new FakeClock({ instant: true });
    const switches: [ModelTarget, ClassifiedError | "restored"][] = [];
    const primary = openaiTarget(a, clock, ["sk-1", "sk-2"]);
    primary.pool.snapshot(); // both keys available
    const stream = withResilience([primary, anthropicTarget(b, clock)], { clock, onSwitch: (t, why) => switches.push([t, why]) });
    // first key: billing → rotate to sk-2, which is billing too → fallback
    a.enqueue({ status: 402, message: "Insufficient credits." });
    expect(doneMessage(await run(stream, request(hi))).content).toBe("from anthropic");
    expect(a.completions().map((r) => r.apiKey)).toEqual(["sk-1", "sk-2"]);
    expect(clock.sleeps).toEqual([]);
    expect(primary.pool.snapshot().map((e) => e.exhaustedUntil)).toEqual([clock.now() + 3_600_000, clock.now() + 3_600_000]);
    expect(switches).toHaveLength(1);
    expect(switches[0]?.[0]).toMatchObject({ provider: "anthropic", model: "claude-test-4", contextLength: 200_000 });
    expect(switches[0]?.[1]).toMatchObject({ reason: "billing" });
    expect(stream.activeTarget().provider).toBe("anthropic");
  });

  it("402 'usage limit, try again in 5 minutes' is transient: short cooldown, and waited out when allowed", async () => {
    const a = await server();
    const clock = new FakeClock({ instant: true });
    a.enqueue({ status: 402, message: "Usage limit reached. Please try again in 5 minutes." }, { text: "after the wait" });
    const waited = withResilience([openaiTarget(a, clock)], { clock, maxRetryAfterS: 600 });
    expect(doneMessage(await run(waited, request(hi))).content).toBe("after the wait");
    expect(clock.sleeps).toEqual([300_000]);

    a.enqueue({ status: 402, message: "Usage limit reached. Please try again in 5 minutes." }, { text: "second key" });
    const twoKeys = openaiTarget(a, clock, ["k1", "k2"]);
    expect(doneMessage(await run(withResilience([twoKeys], { clock }), request(hi))).content).toBe("second key");
    expect(twoKeys.pool.snapshot()[0]).toMatchObject({ lastReason: "rate_limit", exhaustedUntil: clock.now() + 300_000 });
  });

  it("a 429 asking for longer than retry_max_wait falls back instead of sleeping", async () => {
    const a = await server();
    const b = await server();
    a.enqueue({ status: 429, headers: { "retry-after": "3600" }, message: "slow down" });
    b.enqueue({ text: "fallback" });
    const clock = new FakeClock({ instant: true });
    const stream = withResilience([openaiTarget(a, clock), anthropicTarget(b, clock)], { clock, maxRetryAfterS: 120 });
    expect(doneMessage(await run(stream, request(hi))).content).toBe("fallback");
    expect(clock.sleeps).toEqual([]);
  });

  it("returns context overflow to the caller untouched: no retry, no failover", async () => {
    const a = await server();
    const b = await server();
    a.enqueue({ status: 400, message: "This model's maximum context length is 128000 tokens." });
    const clock = new FakeClock({ instant: true });
    const stream = withResilience([openaiTarget(a, clock), anthropicTarget(b, clock)], { clock });
    const events = await run(stream, request(hi));
    expect(events).toHaveLength(1);
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "context_overflow", shouldCompress: true } });
    expect(b.completions()).toHaveLength(0);
    expect(stream.activeTarget().provider).toBe("openai");
  });

  it("surfaces a failure after content was streamed instead of retrying it", async () => {
    const a = await server();
    a.enqueue({ text: "half an answer that will be cut off", chunkChars: 4, disconnectAfterFrames: 4 }, { text: "never" });
    const clock = new FakeClock({ instant: true });
    const events = await run(withResilience([openaiTarget(a, clock)], { clock }), request(hi));
    expect(events.some((e) => e.type === "text_delta")).toBe(true);
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "timeout", retryable: true } });
    expect(a.completions()).toHaveLength(1);
    expect(events.filter((e) => e.type === "start")).toHaveLength(1);
  });

  it("fails over openai → anthropic mid-conversation with the history converted, stays there, and comes back later", async () => {
    const a = await server();
    const b = await server();
    const clock = new FakeClock({ instant: true });
    const switches: string[] = [];
    const stream = withResilience([openaiTarget(a, clock, ["sk-a"], 1), anthropicTarget(b, clock)], {
      clock,
      ...noJitter,
      restorePrimaryAfterS: 300,
      onSwitch: (t, why) => switches.push(`${t.provider}:${why === "restored" ? why : why.reason}`),
    });
    a.enqueue({ reasoning: "think", toolCalls: [{ id: "call_9", name: "get_weather", arguments: { city: "Lima" } }] });
    const history: Message[] = [{ role: "user", content: "Weather in Lima?" }];
    const first = doneMessage(await run(stream, request(history)));
    history.push(first, { role: "tool", tool_call_id: "call_9", content: "18C" });

    a.enqueue({ status: 503, message: "Service Unavailable" }, { status: 503, message: "Service Unavailable" });
    b.enqueue({ text: "Lima: 18C." });
    expect(doneMessage(await run(stream, request(history))).content).toBe("Lima: 18C.");
    expect(a.completions()).toHaveLength(3);
    const sent = b.completions()[0]?.body;
    expect(sent.model).toBe("claude-test-4");
    expect(sent.system).toBe("You are a test.");
    expect(sent.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Lima?" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "call_9", name: "get_weather", input: { city: "Lima" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_9", content: "18C" }] },
    ]);
    expect(switches).toEqual(["anthropic:overloaded"]);

    b.enqueue({ text: "still anthropic" });
    expect(doneMessage(await run(stream, request(history))).content).toBe("still anthropic");
    expect(a.completions()).toHaveLength(3);

    await clock.advance(300_000);
    a.enqueue({ text: "primary is back" });
    expect(doneMessage(await run(stream, request(history))).content).toBe("primary is back");
    expect(switches).toEqual(["anthropic:overloaded", "openai:restored"]);
    expect(stream.activeTarget().provider).toBe("openai");
  });

  it("records the switch even when the consumer stops reading at done", async () => {
    const a = await server();
    const b = await server();
    a.enqueue({ status: 402, message: "Insufficient credits" });
    b.enqueue({ text: "x" });
    const clock = new FakeClock({ instant: true });
    const stream = withResilience([openaiTarget(a, clock), anthropicTarget(b, clock)], { clock });
    for await (const e of stream(request(hi), new AbortController().signal)) if (e.type === "done") break;
    expect(stream.activeTarget().provider).toBe("anthropic");
  });

  it("retries once without replayed thinking when the provider rejects a signature", async () => {
    const b = await server();
    b.enqueue({ status: 400, message: "messages.1.content.0: Invalid `signature` in `thinking` block" }, { text: "fine" });
    const clock = new FakeClock({ instant: true });
    const history: Message[] = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: "a",
        reasoning_details: { kind: "anthropic_thinking", provider: "anthropic", blocks: [{ type: "thinking", thinking: "t", signature: "bad" }] },
      },
      { role: "user", content: "q2" },
    ];
    expect(doneMessage(await run(withResilience([anthropicTarget(b, clock)], { clock }), request(history))).content).toBe("fine");
    const [first, second] = b.completions();
    expect(first?.body.messages[1].content[0].type).toBe("thinking");
    expect(second?.body.messages[1].content).toEqual([{ type: "text", text: "a" }]);
    expect(clock.sleeps).toEqual([]);
  });

  it("sends a plain 400 to the next target instead of to the user", async () => {
    const a = await server();
    const b = await server();
    a.enqueue({ status: 400, message: "Invalid value for 'tool_choice'" });
    b.enqueue({ text: "from the fallback" });
    const clock = new FakeClock({ instant: true });
    const stream = withResilience([openaiTarget(a, clock), anthropicTarget(b, clock)], { clock });
    expect(doneMessage(await run(stream, request(hi))).content).toBe("from the fallback");
    expect(a.completions()).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("surfaces a policy block at once, telling the user what to change, with no retry and no fallback", async () => {
    const a = await server();
    const b = await server();
    a.enqueue({ status: 404, message: "No endpoints found matching your data policy (Free model publication)." });
    const clock = new FakeClock({ instant: true });
    const end = terminal(await run(withResilience([openaiTarget(a, clock), anthropicTarget(b, clock)], { clock }), request(hi)));
    expect(end).toMatchObject({ type: "error", error: { reason: "provider_policy_blocked", userAction: true } });
    expect(end.type === "error" && end.error.message).toMatch(/openrouter\.ai\/settings\/privacy/);
    expect(a.completions()).toHaveLength(1);
    expect(b.completions()).toHaveLength(0);
  });

  it.each([
    [
      "llama.cpp grammar: pattern and format leave the tool schemas",
      "error parsing grammar: unknown escape \\d",
      {
        tools: [
          {
            name: "when",
            description: "d",
            parameters: { type: "object", properties: { day: { type: "string", pattern: "^\\d{4}$", format: "date" }, pattern: { type: "string" } } },
          },
        ],
      },
      (body: { tools: { function: { parameters: unknown } }[] }) => body.tools[0]?.function.parameters,
      { type: "object", properties: { day: { type: "string" }, pattern: { type: "string" } } },
    ],
    [
      "reasoning is mandatory: the request stops switching it off",
      "Reasoning is mandatory for this endpoint and cannot be disabled.",
      { reasoningEffort: "none" as const, model: "gpt-5" },
      (body: Record<string, unknown>) => ("reasoning_effort" in body ? body.reasoning_effort : "absent"),
      "absent",
    ],
    [
      "tool content must be a string: images leave the request",
      "Param Incorrect: text is not set",
      {
        messages: [
          {
            role: "user" as const,
            content: [
              { type: "text" as const, text: "see" },
              { type: "image_url" as const, image_url: { url: "data:image/png;base64,AAAA" } },
            ],
          },
        ],
      },
      (body: { messages: { content: unknown }[] }) => body.messages.at(-1)?.content,
      [
        { type: "text", text: "see" },
        { type: "text", text: "[image removed: the provider rejected it]" },
      ],
    ],
  ])("repairs the request once and retries on the same target: %s", async (_n, message, extra, pick, expected) => {
    const a = await server();
    a.enqueue({ status: 400, message }, { text: "accepted" });
    const clock = new FakeClock({ instant: true });
    const req = { ...request(hi), ...extra };
    // The request's model reaches the wire (as a session's /model choice does): reasoning_effort goes to reasoning models only.
    const t: ResilienceTarget = { ...openaiTarget(a, clock), usesRequestModel: true };
    expect(doneMessage(await run(withResilience([t], { clock }), req)).content).toBe("accepted");
    const [first, second] = a.completions();
    expect(pick(first?.body)).not.toEqual(expected);
    expect(pick(second?.body)).toEqual(expected);
    expect(clock.sleeps).toEqual([]);
  });

  it("drops the 1M-context beta from the anthropic-beta header when the subscription refuses it", async () => {
    const b = await server();
    b.enqueue({ status: 400, message: "The long context beta is not yet available for this subscription." }, { text: "ok" });
    const clock = new FakeClock({ instant: true });
    const t = anthropicTarget(b, clock);
    const withBeta: ResilienceTarget = {
      ...t,
      connect: (cred) =>
        anthropicMessagesStream(
          connection(b.anthropicBaseUrl, {
            provider: "anthropic",
            apiKey: cred.apiKey,
            clock,
            headers: { "anthropic-beta": "context-1m-2025-08-07,interleaved-thinking-2025-05-14" },
          }),
        ),
    };
    expect(doneMessage(await run(withResilience([withBeta], { clock }), request(hi))).content).toBe("ok");
    expect(b.completions().map((r) => r.headers["anthropic-beta"])).toEqual([
      "context-1m-2025-08-07,interleaved-thinking-2025-05-14",
      "interleaved-thinking-2025-05-14",
    ]);
  });

  it("ends in one aborted error when the caller aborts during a backoff wait", async () => {
    const a = await server();
    a.enqueue({ status: 500 });
    const ac = new AbortController();
    const waitForever = new FakeClock(); // never advanced: a wait ends only when aborted
    const stream = withResilience([openaiTarget(a, waitForever)], { clock: waitForever, onRetry: () => setTimeout(() => ac.abort(), 10) });
    const events = await run(stream, request(hi), ac.signal);
    expect(events.filter((e) => e.type === "error")).toHaveLength(1);
    expect(terminal(events)).toMatchObject({ type: "error", error: { reason: "aborted" } });
  });

  it("reports when every key is cooling down and there is nowhere to go", async () => {
    const a = await server();
    a.enqueue({ status: 429, headers: { "retry-after": "900" } }, { status: 429, headers: { "retry-after": "600" } });
    const clock = new FakeClock({ instant: true });
    const t = openaiTarget(a, clock, ["k1", "k2"]);
    const stream = withResilience([t], { clock });
    expect(terminal(await run(stream, request(hi)))).toMatchObject({ type: "error", error: { reason: "rate_limit" } });
    const end = terminal(await run(stream, request(hi)));
    expect(end).toMatchObject({ type: "error", error: { reason: "rate_limit", retryAfterS: 600, retryable: false } });
    expect(a.completions()).toHaveLength(2);
  });
});

describe("nextStep (the wrapper's whole policy, from flags)", () => {
  const e = (reason: ClassifiedError["reason"], extra: Partial<ClassifiedError> = {}): ClassifiedError => ({
    ...classifyError({ message: "", nowMs: 0 }),
    ...REASON_FLAGS[reason],
    reason,
    ...extra,
  });
  const ctx = { emittedContent: false, repaired: new Set<RequestRepair>(), otherKeyAvailable: false, retriesLeft: true, attempt: 1 };
  const policy = { backoff: PROVIDER_BACKOFF, random: () => 0, maxRetryAfterS: 120 };
  it.each<[string, ClassifiedError, Partial<typeof ctx>, string]>([
    ["content already streamed", e("server_error"), { emittedContent: true }, "surface"],
    ["aborted", e("aborted"), {}, "surface"],
    ["context overflow: the loop compresses", e("context_overflow"), {}, "surface"],
    ["payload too large", e("payload_too_large"), {}, "surface"],
    ["long-context tier", e("long_context_tier"), {}, "surface"],
    ["thinking signature, first time", e("thinking_signature", { repair: "strip_reasoning" }), {}, "repair:strip_reasoning"],
    ["thinking signature, already stripped", e("thinking_signature", { repair: "strip_reasoning" }), { repaired: new Set(["strip_reasoning"]) }, "retry:5000"],
    ["tool content must be a string", e("multimodal_tool_content_unsupported", { repair: "strip_images" }), {}, "repair:strip_images"],
    ["llama.cpp grammar", e("llama_cpp_grammar_pattern", { repair: "strip_schema_patterns" }), {}, "repair:strip_schema_patterns"],
    ["reasoning is mandatory", e("reasoning_mandatory", { repair: "enable_reasoning" }), {}, "repair:enable_reasoning"],
    ["auth with another key", e("auth"), { otherKeyAvailable: true }, "rotate"],
    ["auth with no other key", e("auth"), {}, "next"],
    ["403 permission error never rotates", e("auth", { shouldRotateCredential: false }), { otherKeyAvailable: true }, "next"],
    ["billing with another key", e("billing"), { otherKeyAvailable: true }, "rotate"],
    ["billing alone", e("billing"), {}, "next"],
    ["rate limit with another key", e("rate_limit", { retryAfterS: 5 }), { otherKeyAvailable: true }, "rotate"],
    ["rate limit, short retry-after", e("rate_limit", { retryAfterS: 5 }), {}, "retry:5000"],
    ["rate limit, long retry-after", e("rate_limit", { retryAfterS: 500 }), {}, "next"],
    ["upstream rate limit never rotates", e("upstream_rate_limit"), { otherKeyAvailable: true }, "retry:5000"],
    ["server error, second retry", e("server_error"), { attempt: 2 }, "retry:10000"],
    ["server error, retries used up: the retry loop moves on", e("server_error"), { retriesLeft: false }, "next"],
    ["model not found", e("model_not_found"), {}, "next"],
    ["a plain 400 goes to the next target", e("format_error"), {}, "next"],
    ["safety refusal goes to the next target", e("content_policy_blocked"), {}, "next"],
    ["policy block: the user must act", e("provider_policy_blocked"), {}, "surface"],
    ["certificate failure: the user must act", e("ssl_cert_verification"), {}, "surface"],
    ["unknown", e("unknown"), {}, "retry:5000"],
  ])("%s", (_n, error, c, expected) => {
    const step = nextStep(error, { ...ctx, ...c }, policy);
    expect(step.kind === "retry" ? `retry:${step.delayMs}` : step.kind === "repair" ? `repair:${step.repair}` : step.kind).toBe(expected);
  });
});
