import { describe, expect, it } from "vitest";
import { classifyError, REASON_FLAGS, type ErrorFacts } from "../../agent/resilience/classify.js";
import { factsFromError } from "../../agent/resilience/error-facts.js";
import { FAILOVER_REASONS, type FailoverReason } from "../../agent/types.js";

const NOW = 1_700_000_000_000;
const f = (x: Partial<ErrorFacts>): ErrorFacts => ({ message: "", nowMs: NOW, ...x });
const openaiBody = (message: string, code: string | null = null, type = "invalid_request_error") => ({ message, type, code });
const anthropicBody = (type: string, message: string) => ({ type: "error", error: { type, message } });

type Row = readonly [name: string, facts: ErrorFacts, reason: FailoverReason, extra?: Record<string, unknown>];

const ROWS: readonly Row[] = [
  // 0. our own aborts
  ["caller abort", f({ message: "Request was aborted.", abortCause: "caller", errorType: "APIUserAbortError" }), "aborted"],
  ["idle timeout", f({ message: "request idle", abortCause: "idle" }), "timeout"],
  ["deadline", f({ message: "request deadline", abortCause: "deadline" }), "timeout"],
  // 1. provider-specific
  ["anthropic thinking signature", f({ status: 400, body: anthropicBody("invalid_request_error", "messages.1.content.0: Invalid `signature` in `thinking` block") }), "thinking_signature", { shouldStripReasoning: true, retryable: true }],
  ["anthropic long-context tier 429", f({ status: 429, body: anthropicBody("rate_limit_error", "Extra usage is required for long context requests.") }), "long_context_tier", { shouldCompress: true, shouldFallback: false }],
  ["openrouter data policy 404", f({ status: 404, body: openaiBody("No endpoints found matching your data policy (Free model publication)") }), "format_error", { shouldFallback: false }],
  ["llama.cpp grammar", f({ status: 400, message: "failed to parse grammar: unsupported regex in schema" }), "format_error"],
  ["image too large", f({ status: 400, body: anthropicBody("invalid_request_error", "image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes") }), "format_error"],
  // 2. status with refinement
  ["401", f({ status: 401, body: openaiBody("Incorrect API key provided", "invalid_api_key") }), "auth", { shouldRotateCredential: true, shouldFallback: true, retryable: false }],
  ["403 permission", f({ status: 403, body: anthropicBody("permission_error", "Your API key does not have permission") }), "auth"],
  ["403 with credits message", f({ status: 403, body: openaiBody("Insufficient credits. Add more credits to continue.") }), "billing"],
  ["402 billing", f({ status: 402, body: openaiBody("Insufficient credits. This account requires more credits.") }), "billing", { retryable: false, shouldFallback: true, shouldRotateCredential: true }],
  ["402 usage limit, try again in 5 minutes", f({ status: 402, body: openaiBody("Usage limit reached for this key. Please try again in 5 minutes.") }), "rate_limit", { retryable: true, retryAfterS: 300 }],
  ["402 bare", f({ status: 402, message: "402 Payment Required" }), "billing"],
  ["404 model", f({ status: 404, body: openaiBody("The model `gpt-9` does not exist", "model_not_found") }), "model_not_found", { shouldFallback: true }],
  ["408", f({ status: 408, message: "Request Timeout" }), "timeout"],
  ["413", f({ status: 413, body: anthropicBody("request_too_large", "Request exceeds the maximum allowed number of bytes.") }), "payload_too_large", { shouldCompress: true }],
  ["413 that says overflow", f({ status: 413, message: "prompt is too long" }), "context_overflow"],
  ["400 openai context", f({ status: 400, body: openaiBody("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "context_length_exceeded") }), "context_overflow", { shouldCompress: true, shouldFallback: false, retryable: false }],
  ["400 anthropic context", f({ status: 400, body: anthropicBody("invalid_request_error", "prompt is too long: 201234 tokens > 200000 maximum") }), "context_overflow"],
  ["400 responses context", f({ status: 400, body: openaiBody("Your input exceeds the context window of this model.") }), "context_overflow"],
  ["400 gemini context", f({ status: 400, message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)." }), "context_overflow"],
  ["400 llama.cpp context", f({ status: 400, message: "the request exceeds the available context size, try increasing it" }), "context_overflow"],
  ["400 code-only context", f({ status: 400, body: { error: { message: "bad", code: "context_length_exceeded" } } }), "context_overflow"],
  ["400 anthropic credit balance", f({ status: 400, body: anthropicBody("invalid_request_error", "Your credit balance is too low to access the Anthropic API.") }), "billing"],
  ["400 generic", f({ status: 400, body: openaiBody("Invalid value for 'tool_choice'") }), "format_error", { retryable: false, shouldFallback: false }],
  ["422 generic", f({ status: 422, message: "Unprocessable Entity" }), "format_error"],
  ["429 rate limit with header", f({ status: 429, headers: { "retry-after": "12" }, body: openaiBody("Rate limit reached for requests", "rate_limit_exceeded") }), "rate_limit", { retryAfterS: 12, retryable: true, shouldRotateCredential: true }],
  ["429 insufficient_quota is billing", f({ status: 429, body: openaiBody("You exceeded your current quota, please check your plan and billing details.", "insufficient_quota") }), "billing", { retryable: false }],
  ["429 usage limit try again in 5 minutes", f({ status: 429, body: openaiBody("The usage limit has been reached. Try again in 5 minutes.") }), "rate_limit", { retryAfterS: 300 }],
  ["429 TPM with go duration", f({ status: 429, body: openaiBody("Rate limit reached for gpt-4o on tokens per min (TPM). Please try again in 6m0s.") }), "rate_limit", { retryAfterS: 360 }],
  ["499", f({ status: 499, message: "client closed request" }), "timeout"],
  ["500", f({ status: 500, body: openaiBody("The server had an error", null, "server_error") }), "server_error", { retryable: true, shouldFallback: true }],
  ["500 with overflow text", f({ status: 500, message: "context length exceeded" }), "context_overflow"],
  ["502", f({ status: 502, message: "Bad gateway" }), "server_error"],
  ["503", f({ status: 503, message: "Service Unavailable" }), "overloaded", { retryable: true }],
  ["504", f({ status: 504, message: "Gateway Timeout" }), "timeout"],
  ["529", f({ status: 529, body: anthropicBody("overloaded_error", "Overloaded") }), "overloaded"],
  ["418 other 4xx", f({ status: 418, message: "teapot" }), "format_error"],
  ["599 other 5xx", f({ status: 599, message: "odd" }), "server_error"],
  // 3. error codes without status (in-band errors)
  ["in-band overloaded type", f({ body: anthropicBody("overloaded_error", "Overloaded") }), "overloaded"],
  ["in-band rate_limit code", f({ body: { code: "rate_limit_exceeded", message: "slow down" } }), "rate_limit"],
  ["in-band insufficient_quota", f({ body: { error: { code: "insufficient_quota", message: "quota gone" } } }), "billing"],
  ["in-band context code", f({ body: { code: "context_length_exceeded", message: "x" } }), "context_overflow"],
  ["in-band generic server_error defers to message", f({ body: { error: { type: "server_error", message: "upstream overloaded" } } }), "overloaded"],
  ["in-band generic server_error", f({ body: { error: { type: "server_error", message: "boom" } } }), "server_error"],
  // 4. message patterns
  ["message: prompt too long", f({ message: "prompt is too long" }), "context_overflow"],
  ["message: billing", f({ message: "Your account is out of credits" }), "billing"],
  ["message: transient quota", f({ message: "quota exceeded, resets in 30 seconds" }), "rate_limit", { retryAfterS: 30 }],
  ["message: too many requests", f({ message: "Too Many Requests" }), "rate_limit"],
  ["message: overloaded", f({ message: "model is overloaded, please retry" }), "overloaded"],
  ["message: invalid api key", f({ message: "Invalid API key" }), "auth"],
  ["message: unknown model", f({ message: "unknown model: foo-1" }), "model_not_found"],
  // 5. SSL before the disconnect rule
  ["ssl alert mid-stream on a huge session", f({ message: "connection reset: SSL alert bad record mac", code: "EPROTO ECONNRESET", approxTokens: 190_000, contextLength: 200_000 }), "timeout", { shouldCompress: false }],
  ["tls handshake", f({ message: "Client network socket disconnected before secure TLS connection was established" }), "timeout"],
  // 6. disconnect + large session
  ["disconnect on a large session", f({ message: "terminated", errorType: "TypeError", code: "UND_ERR_SOCKET", approxTokens: 150_000, contextLength: 200_000 }), "context_overflow", { shouldCompress: true, shouldFallback: false }],
  ["disconnect on a small session", f({ message: "terminated", errorType: "TypeError", code: "UND_ERR_SOCKET", approxTokens: 1_000, contextLength: 200_000 }), "timeout", { retryable: true }],
  ["socket hang up, size unknown", f({ message: "socket hang up", code: "ECONNRESET" }), "timeout"],
  ["stream truncated", f({ message: "stream ended before the model finished (server disconnected)" }), "timeout"],
  // 7. transport names
  ["connection timeout class", f({ message: "Request timed out.", errorType: "APIConnectionTimeoutError" }), "timeout"],
  ["connection refused", f({ message: "Connection error.: fetch failed: connect ECONNREFUSED 127.0.0.1:1", errorType: "APIConnectionError TypeError", code: "ECONNREFUSED" }), "timeout"],
  ["dns failure", f({ message: "getaddrinfo ENOTFOUND api.example.com", code: "ENOTFOUND" }), "timeout"],
  // 8. fallback
  ["nothing recognisable", f({ message: "something odd happened" }), "unknown", { retryable: true, shouldFallback: true }],
  ["empty", f({}), "unknown"],
];

describe("classifyError (§4 pipeline)", () => {
  it.each(ROWS.map((r) => [...r] as [string, ErrorFacts, FailoverReason, Record<string, unknown> | undefined]))("%s", (_name, facts, reason, extra) => {
    const c = classifyError(facts);
    expect(c.reason).toBe(reason);
    if (extra) expect(c).toMatchObject(extra);
    // flags always come from the per-reason table
    const { retryable, shouldCompress, shouldRotateCredential, shouldFallback } = REASON_FLAGS[reason];
    expect({ retryable: c.retryable, shouldCompress: c.shouldCompress, shouldRotateCredential: c.shouldRotateCredential, shouldFallback: c.shouldFallback }).toEqual({ retryable, shouldCompress, shouldRotateCredential, shouldFallback });
  });

  it("has a flag row for every failover reason, and overflow never fails over", () => {
    expect(Object.keys(REASON_FLAGS).sort()).toEqual([...FAILOVER_REASONS].sort());
    for (const r of ["context_overflow", "payload_too_large", "long_context_tier"] as const) {
      expect(REASON_FLAGS[r]).toMatchObject({ shouldCompress: true, shouldFallback: false, retryable: false });
    }
  });

  it("keeps the status and a readable, bounded message", () => {
    const c = classifyError(f({ status: 500, body: openaiBody("x".repeat(2000), null, "server_error") }));
    expect(c.status).toBe(500);
    expect(c.message.length).toBeLessThanOrEqual(500);
    expect(classifyError(f({ status: 401, body: anthropicBody("authentication_error", "invalid x-api-key") })).message).toBe("invalid x-api-key");
  });

  it.each([
    ["retry-after seconds", { "retry-after": "3" }, 3],
    ["retry-after-ms", { "retry-after-ms": "1500" }, 1.5],
    ["retry-after HTTP date", { "retry-after": new Date(NOW + 9000).toUTCString() }, 9],
    ["x-ratelimit-reset epoch seconds", { "x-ratelimit-reset": String(NOW / 1000 + 42) }, 42],
    ["x-ratelimit-reset epoch ms", { "x-ratelimit-reset": String(NOW + 4000) }, 4],
    ["x-ratelimit-reset-requests go duration", { "x-ratelimit-reset-requests": "1m30s" }, 90],
    ["x-ratelimit-reset-tokens ms", { "x-ratelimit-reset-tokens": "250ms" }, 0.25],
    ["anthropic ISO reset (longest dimension)", { "anthropic-ratelimit-requests-reset": new Date(NOW + 5000).toISOString(), "anthropic-ratelimit-tokens-reset": new Date(NOW + 20_000).toISOString() }, 20],
  ])("reads retryAfterS from headers: %s", (_n, headers, expected) => {
    expect(classifyError(f({ status: 429, headers, message: "rate limited" })).retryAfterS).toBeCloseTo(expected, 3);
  });

  it.each([
    ["body retry_after", { error: { message: "slow", retry_after: 8 } }, 8],
    ["body reset_at ISO", { error: { message: "slow", reset_at: new Date(NOW + 60_000).toISOString() } }, 60],
    ["body resets_at epoch s", { error: { message: "slow", resets_at: NOW / 1000 + 30 } }, 30],
    ["openrouter metadata headers (epoch ms)", { error: { message: "Rate limit exceeded", code: 429, metadata: { headers: { "X-RateLimit-Reset": String(NOW + 11_000) } } } }, 11],
  ])("reads retryAfterS from the body: %s", (_n, body, expected) => {
    expect(classifyError(f({ status: 429, body })).retryAfterS).toBeCloseTo(expected, 3);
  });

  it("ignores per-dimension reset headers when the error is not a limit", () => {
    expect(classifyError(f({ status: 500, headers: { "anthropic-ratelimit-tokens-reset": new Date(NOW + 5000).toISOString() } })).retryAfterS).toBeUndefined();
  });
});

describe("factsFromError", () => {
  it("walks the cause chain for class names and errno codes", () => {
    const root = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    const mid = new TypeError("fetch failed", { cause: root });
    class APIConnectionError extends Error {}
    const top = new APIConnectionError("Connection error.", { cause: mid });
    const facts = factsFromError(top, { nowMs: NOW });
    expect(facts.message).toBe("Connection error.: fetch failed: connect ECONNREFUSED 127.0.0.1:9");
    expect(facts.code).toBe("ECONNREFUSED");
    expect(facts.errorType).toContain("APIConnectionError");
    expect(classifyError(facts).reason).toBe("timeout");
  });

  it("reads status, headers (a Headers object) and body from SDK-shaped errors", () => {
    const err = Object.assign(new Error("429 rate limited"), { status: 429, headers: new Headers({ "Retry-After": "5" }), error: { message: "slow down", type: "rate_limit_error" } });
    const facts = factsFromError(err, { nowMs: NOW, approxTokens: 10, contextLength: 100 });
    expect(facts).toMatchObject({ status: 429, headers: { "retry-after": "5" }, body: { message: "slow down" }, approxTokens: 10, contextLength: 100 });
    expect(classifyError(facts)).toMatchObject({ reason: "rate_limit", retryAfterS: 5 });
  });
});
