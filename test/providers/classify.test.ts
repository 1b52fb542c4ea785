import { describe, expect, it } from "vitest";
import { classifyError, type ErrorFacts } from "../../agent/resilience/classify.js";
import { factsFromError } from "../../agent/resilience/error-facts.js";
import { REASON_FLAGS, REASON_REPAIR } from "../../agent/resilience/verdicts.js";
import { type ClassifiedError, FAILOVER_REASONS, type FailoverReason } from "../../agent/types.js";

const NOW = 1_700_000_000_000;
const f = (x: Partial<ErrorFacts>): ErrorFacts => ({ message: "", nowMs: NOW, ...x });
/** The OpenAI SDK keeps the inner error object as the body. */
const openaiBody = (message: string, code: string | null = null, type = "invalid_request_error") => ({ message, type, code });
/** The Anthropic SDK keeps the whole response. */
const anthropicBody = (type: string, message: string) => ({ type: "error", error: { type, message } });
const large = { approxTokens: 150_000, contextLength: 200_000, numMessages: 40 };
const small = { approxTokens: 1_000, contextLength: 200_000, numMessages: 4 };

/**
 * Flags as four letters: R(etryable) C(ompress) K (rotate the key) F(all back), "." for false.
 * E.g. "RC.." is "retry after compressing, never fall back".
 */
const flagsOf = (c: Pick<ClassifiedError, "retryable" | "shouldCompress" | "shouldRotateCredential" | "shouldFallback">): string =>
  `${c.retryable ? "R" : "."}${c.shouldCompress ? "C" : "."}${c.shouldRotateCredential ? "K" : "."}${c.shouldFallback ? "F" : "."}`;

describe("the verdict table (retryable, compress, rotate credential, fall back — per reason)", () => {
  const TABLE: Readonly<Record<FailoverReason, string>> = {
    context_overflow: "RC..",
    payload_too_large: "RC..",
    long_context_tier: "RC..",
    rate_limit: "R.KF",
    upstream_rate_limit: "R..F",
    billing: "..KF",
    auth: "..KF",
    auth_permanent: "...F",
    format_error: "...F",
    model_not_found: "...F",
    content_policy_blocked: "...F",
    timeout: "R...",
    server_error: "R...",
    overloaded: "R...",
    unknown: "R...",
    thinking_signature: "R...",
    invalid_encrypted_content: "R...",
    multimodal_tool_content_unsupported: "R...",
    image_too_large: "R...",
    oauth_long_context_beta_forbidden: "R...",
    llama_cpp_grammar_pattern: "R...",
    reasoning_mandatory: "R...",
    provider_policy_blocked: "....",
    ssl_cert_verification: "....",
    aborted: "....",
  };
  it.each(FAILOVER_REASONS.map((r) => [r, TABLE[r]] as const))("%s → %s", (reason, expected) => {
    expect(flagsOf(REASON_FLAGS[reason])).toBe(expected);
  });

  it.each([
    ["thinking_signature", "strip_reasoning"],
    ["invalid_encrypted_content", "strip_reasoning"],
    ["multimodal_tool_content_unsupported", "strip_images"],
    ["image_too_large", "strip_images"],
    ["llama_cpp_grammar_pattern", "strip_schema_patterns"],
    ["oauth_long_context_beta_forbidden", "drop_long_context_beta"],
    ["reasoning_mandatory", "enable_reasoning"],
  ] as const)("%s is repaired by %s", (reason, repair) => {
    expect(REASON_REPAIR[reason]).toBe(repair);
  });
});

type Row = readonly [name: string, facts: ErrorFacts, reason: FailoverReason, flags: string, extra?: Partial<ClassifiedError>];

const ROWS: readonly Row[] = [
  // 0. our own aborts
  ["caller abort", f({ message: "Request was aborted.", abortCause: "caller", errorType: "APIUserAbortError" }), "aborted", "...."],
  ["idle timeout", f({ message: "request idle", abortCause: "idle" }), "timeout", "R..."],
  ["deadline", f({ message: "request deadline", abortCause: "deadline" }), "timeout", "R..."],
  // 1. provider-specific, before the status
  ["safety refusal on a 400", f({ status: 400, body: openaiBody("Your request was flagged by our safety system.") }), "content_policy_blocked", "...F"],
  [
    "safety refusal without a status (Codex)",
    f({ message: "This request has been flagged for possible cybersecurity risk." }),
    "content_policy_blocked",
    "...F",
  ],
  [
    "thinking signature",
    f({ status: 400, body: anthropicBody("invalid_request_error", "messages.1.content.0: Invalid `signature` in `thinking` block") }),
    "thinking_signature",
    "R...",
    { repair: "strip_reasoning" },
  ],
  [
    "latest thinking block changed",
    f({
      status: 400,
      body: anthropicBody("invalid_request_error", "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified."),
    }),
    "thinking_signature",
    "R...",
  ],
  [
    "'invalid signature' alone is not a thinking signature",
    f({ status: 400, body: openaiBody("Invalid signature on the request payload") }),
    "format_error",
    "...F",
  ],
  [
    "long-context tier 429",
    f({ status: 429, body: anthropicBody("rate_limit_error", "Extra usage is required for long context requests.") }),
    "long_context_tier",
    "RC..",
  ],
  [
    "OAuth subscription refuses the 1M beta",
    f({ status: 400, body: anthropicBody("invalid_request_error", "The long context beta is not yet available for this subscription.") }),
    "oauth_long_context_beta_forbidden",
    "R...",
    { repair: "drop_long_context_beta" },
  ],
  [
    "llama.cpp grammar",
    f({ status: 400, message: "error parsing grammar: unknown escape at \\d{4}" }),
    "llama_cpp_grammar_pattern",
    "R...",
    { repair: "strip_schema_patterns" },
  ],
  [
    "llama.cpp template without a user turn is not a grammar problem",
    f({ status: 400, message: "Unable to generate parser for this template. No user query found in messages." }),
    "format_error",
    "...F",
  ],
  [
    "reasoning is mandatory",
    f({ status: 400, body: openaiBody("Reasoning is mandatory for this endpoint and cannot be disabled.") }),
    "reasoning_mandatory",
    "R...",
    { repair: "enable_reasoning" },
  ],
  [
    "no Grok subscription (in-band)",
    f({ message: "You have either run out of available resources or do not have an active Grok subscription." }),
    "auth",
    "...F",
  ],
  // 2. status, refined by the body
  ["401", f({ status: 401, body: openaiBody("Incorrect API key provided", "invalid_api_key") }), "auth", "..KF"],
  [
    "403 permission error: no rotation",
    f({ status: 403, body: anthropicBody("permission_error", "Your API key does not have permission to use the specified resource.") }),
    "auth",
    "...F",
  ],
  ["403 that talks about credits", f({ status: 403, body: openaiBody("Insufficient credits. Add more credits to continue.") }), "billing", "..KF"],
  ["403 key limit exceeded (OpenRouter)", f({ status: 403, body: openaiBody("Key limit exceeded (total limit)") }), "billing", "..KF"],
  ["402 billing", f({ status: 402, body: openaiBody("Insufficient credits. This account requires more credits.") }), "billing", "..KF"],
  [
    "402 usage limit, try again in 5 minutes",
    f({ status: 402, body: openaiBody("Usage limit reached for this key. Please try again in 5 minutes.") }),
    "rate_limit",
    "R.KF",
    { retryAfterS: 300 },
  ],
  ["404 with the model named", f({ status: 404, body: openaiBody("The model `gpt-9` does not exist", "model_not_found") }), "model_not_found", "...F"],
  ["404 'X is not a valid model'", f({ status: 404, body: openaiBody("foo/bar is not a valid model ID") }), "model_not_found", "...F"],
  ["404 without a model named", f({ status: 404, message: "404 page not found" }), "unknown", "R..."],
  [
    "404 OpenRouter data policy",
    f({
      status: 404,
      body: openaiBody("No endpoints found matching your data policy (Free model publication). Configure: https://openrouter.ai/settings/privacy"),
    }),
    "provider_policy_blocked",
    "....",
    { userAction: true },
  ],
  ["404 no endpoint supports tools", f({ status: 404, body: openaiBody("No endpoints found that support tool use.") }), "model_not_found", "...F"],
  ["408", f({ status: 408, message: "Request Timeout" }), "timeout", "R..."],
  ["413", f({ status: 413, body: anthropicBody("request_too_large", "Request exceeds the maximum allowed number of bytes.") }), "payload_too_large", "RC.."],
  [
    "429 with retry-after",
    f({ status: 429, headers: { "retry-after": "12" }, body: openaiBody("Rate limit reached for requests", "rate_limit_exceeded") }),
    "rate_limit",
    "R.KF",
    { retryAfterS: 12 },
  ],
  [
    "429 'rate limit reached' is a rate limit, not billing",
    f({ status: 429, body: openaiBody("Rate limit reached: limit exceeded for this organization") }),
    "rate_limit",
    "R.KF",
  ],
  [
    "429 insufficient_quota is billing",
    f({ status: 429, body: openaiBody("You exceeded your current quota, please check your plan and billing details.", "insufficient_quota") }),
    "billing",
    "..KF",
  ],
  ["429 quota wall without a reset", f({ status: 429, body: openaiBody("Weekly usage limit exceeded for your plan.") }), "billing", "..KF"],
  [
    "429 usage limit, try again in 5 minutes",
    f({ status: 429, body: openaiBody("The usage limit has been reached. Try again in 5 minutes.") }),
    "rate_limit",
    "R.KF",
    { retryAfterS: 300 },
  ],
  [
    "429 that says the service is overloaded",
    f({ status: 429, body: openaiBody("The service may be temporarily overloaded, please try again later") }),
    "overloaded",
    "R...",
  ],
  [
    "429 from OpenRouter's upstream provider",
    f({
      status: 429,
      provider: "openrouter",
      body: { message: "Provider returned error", code: 429, metadata: { provider_name: "DeepInfra", raw: '{"error":{"message":"slow down"}}' } },
    }),
    "upstream_rate_limit",
    "R..F",
  ],
  [
    "429 TPM with a Go duration",
    f({ status: 429, body: openaiBody("Rate limit reached for gpt-4o on tokens per min (TPM). Please try again in 6m0s.") }),
    "rate_limit",
    "R.KF",
    { retryAfterS: 360 },
  ],
  [
    "400 OpenAI overflow",
    f({
      status: 400,
      body: openaiBody("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "context_length_exceeded"),
    }),
    "context_overflow",
    "RC..",
  ],
  [
    "400 Anthropic overflow",
    f({ status: 400, body: anthropicBody("invalid_request_error", "prompt is too long: 201234 tokens > 200000 maximum") }),
    "context_overflow",
    "RC..",
  ],
  [
    "400 vLLM max_model_len",
    f({ status: 400, body: openaiBody("The engine prompt length 5000 exceeds the max_model_len 4096. Please reduce prompt.") }),
    "context_overflow",
    "RC..",
  ],
  ["400 llama.cpp slot context", f({ status: 400, message: "slot context: 4096 tokens, prompt 5000 tokens" }), "context_overflow", "RC.."],
  ["400 llama.cpp context size", f({ status: 400, message: "the request exceeds the available context size, try increasing it" }), "context_overflow", "RC.."],
  ["Ollama overflow (no status)", f({ message: "context length exceeded" }), "context_overflow", "RC.."],
  ["400 Z.AI overflow", f({ status: 400, body: openaiBody("Prompt tokens in request more than max tokens allowed", "1210") }), "context_overflow", "RC.."],
  [
    "400 Together overflow",
    f({ status: 400, body: openaiBody("Input length 9000 exceeds the maximum allowed input length of 8192 tokens.") }),
    "context_overflow",
    "RC..",
  ],
  [
    "400 OpenRouter wrapping the upstream overflow in metadata.raw",
    f({ status: 400, body: { message: "Provider returned error", code: 400, metadata: { raw: JSON.stringify({ error: { message: "输入超过最大长度" } }) } } }),
    "context_overflow",
    "RC..",
  ],
  ["400 Chinese overflow", f({ status: 400, body: openaiBody("请求的上下文长度超出限制") }), "context_overflow", "RC.."],
  [
    "400 unsupported parameter naming max_tokens",
    f({ status: 400, body: openaiBody("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.") }),
    "format_error",
    "...F",
  ],
  ["400 plain format error goes to the next target", f({ status: 400, body: openaiBody("Invalid value for 'tool_choice'") }), "format_error", "...F"],
  [
    "400 bare 'Error' on a session near its limit",
    f({ status: 400, body: anthropicBody("invalid_request_error", "Error"), ...large }),
    "context_overflow",
    "RC..",
  ],
  ["400 bare 'Error' on a small session", f({ status: 400, body: anthropicBody("invalid_request_error", "Error"), ...small }), "format_error", "...F"],
  [
    "400 bare 'Error' with many messages",
    f({ status: 400, body: anthropicBody("invalid_request_error", "Error"), approxTokens: 20_000, contextLength: 128_000, numMessages: 81 }),
    "context_overflow",
    "RC..",
  ],
  [
    "400 credit balance",
    f({ status: 400, body: anthropicBody("invalid_request_error", "Your credit balance is too low to access the Anthropic API.") }),
    "billing",
    "..KF",
  ],
  [
    "400 list content in a tool message",
    f({ status: 400, body: { error: { code: "400", message: "Param Incorrect", param: "text is not set" } } }),
    "multimodal_tool_content_unsupported",
    "R...",
    { repair: "strip_images" },
  ],
  [
    "400 image too large",
    f({ status: 400, body: anthropicBody("invalid_request_error", "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum") }),
    "image_too_large",
    "R...",
    { repair: "strip_images" },
  ],
  [
    "400 encrypted reasoning rejected",
    f({ status: 400, body: openaiBody("The encrypted content for item rs_1 could not be verified.", "invalid_encrypted_content") }),
    "invalid_encrypted_content",
    "R...",
    { repair: "strip_reasoning" },
  ],
  ["400 empty message in the transcript", f({ status: 400, body: openaiBody("messages.3: all messages must have non-empty content") }), "format_error", "...F"],
  ["422", f({ status: 422, message: "Unprocessable Entity" }), "format_error", "...F"],
  ["500", f({ status: 500, body: openaiBody("The server had an error", null, "server_error") }), "server_error", "R..."],
  ["500 that says overflow", f({ status: 500, message: "context length exceeded" }), "context_overflow", "RC.."],
  ["502 'unknown parameter' is a format error", f({ status: 502, body: openaiBody("Unknown parameter: 'reasoning'.") }), "format_error", "...F"],
  ["502", f({ status: 502, message: "Bad gateway" }), "server_error", "R..."],
  [
    "502 Cloudflare page on a large session",
    f({ status: 502, message: "error code: 502 cloudflare origin bad gateway", ...large }),
    "context_overflow",
    "RC..",
  ],
  ["503", f({ status: 503, message: "Service Unavailable" }), "overloaded", "R..."],
  ["504", f({ status: 504, message: "Gateway Timeout" }), "server_error", "R..."],
  ["529", f({ status: 529, body: anthropicBody("overloaded_error", "Overloaded") }), "overloaded", "R..."],
  ["other 4xx", f({ status: 418, message: "teapot" }), "format_error", "...F"],
  ["other 5xx", f({ status: 599, message: "odd" }), "server_error", "R..."],
  // 3. structured codes of in-band errors
  ["in-band overloaded_error", f({ body: anthropicBody("overloaded_error", "Overloaded") }), "overloaded", "R..."],
  ["in-band rate_limit_exceeded", f({ body: { code: "rate_limit_exceeded", message: "slow down" } }), "rate_limit", "R.KF"],
  ["in-band insufficient_quota", f({ body: { error: { code: "insufficient_quota", message: "quota gone" } } }), "billing", "..KF"],
  ["in-band context_length_exceeded", f({ body: { code: "context_length_exceeded", message: "x" } }), "context_overflow", "RC.."],
  [
    "in-band invalid_encrypted_content",
    f({ body: { error: { code: "invalid_encrypted_content", message: "bad blob" } } }),
    "invalid_encrypted_content",
    "R...",
  ],
  // 4. wording alone
  ["message: prompt too long", f({ message: "prompt is too long" }), "context_overflow", "RC.."],
  ["message: credit balance", f({ message: "Your credit balance is too low" }), "billing", "..KF"],
  ["message: periodic quota", f({ message: "quota exceeded, resets in 30 seconds" }), "rate_limit", "R.KF", { retryAfterS: 30 }],
  ["message: too many requests", f({ message: "Too Many Requests" }), "rate_limit", "R.KF"],
  ["Bedrock throttling is a rate limit", f({ message: "ThrottlingException: Rate exceeded" }), "rate_limit", "R.KF"],
  [
    "Bedrock 'too many tokens' throttling is a rate limit, not an overflow",
    f({ message: "Throttling error: Too many tokens, please wait before trying again." }),
    "rate_limit",
    "R.KF",
  ],
  ["message: overloaded", f({ message: "model is overloaded, please retry" }), "overloaded", "R..."],
  ["message: invalid api key", f({ message: "Invalid API key" }), "auth", "..KF"],
  ["message: unknown model", f({ message: "unknown model: foo-1" }), "model_not_found", "...F"],
  ["message: timed out", f({ message: "Request timed out.", errorType: "APIConnectionTimeoutError" }), "timeout", "R..."],
  [
    "message: DNS failure on a large session is not an overflow",
    f({ message: "getaddrinfo ENOTFOUND api.example.com", code: "ENOTFOUND", ...large }),
    "timeout",
    "R...",
  ],
  // 5. TLS
  [
    "certificate not verifiable",
    f({ message: "unable to verify the first certificate", code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" }),
    "ssl_cert_verification",
    "....",
    { userAction: true },
  ],
  [
    "self-signed certificate",
    f({ message: "fetch failed: self-signed certificate in certificate chain", code: "SELF_SIGNED_CERT_IN_CHAIN" }),
    "ssl_cert_verification",
    "....",
  ],
  [
    "TLS alert mid-stream on a huge session",
    f({ message: "connection reset: SSL alert bad record mac", code: "EPROTO ECONNRESET", approxTokens: 190_000, contextLength: 200_000 }),
    "timeout",
    "R...",
  ],
  ["TLS handshake cut", f({ message: "Client network socket disconnected before secure TLS connection was established" }), "timeout", "R..."],
  // 6. a hang-up, by session size
  ["hang-up on a large session", f({ message: "terminated", errorType: "TypeError", code: "UND_ERR_SOCKET", ...large }), "context_overflow", "RC.."],
  ["hang-up on a small session", f({ message: "terminated", errorType: "TypeError", code: "UND_ERR_SOCKET", ...small }), "timeout", "R..."],
  ["hang-up on a 1M window at 150K", f({ message: "socket hang up", code: "ECONNRESET", approxTokens: 150_000, contextLength: 1_000_000 }), "timeout", "R..."],
  [
    "hang-up after 201 messages",
    f({ message: "socket hang up", code: "ECONNRESET", approxTokens: 30_000, contextLength: 128_000, numMessages: 201 }),
    "context_overflow",
    "RC..",
  ],
  ["hang-up, size unknown", f({ message: "socket hang up", code: "ECONNRESET" }), "timeout", "R..."],
  // 7. transport
  [
    "connection refused",
    f({ message: "Connection error.: fetch failed: connect ECONNREFUSED 127.0.0.1:1", errorType: "APIConnectionError TypeError", code: "ECONNREFUSED" }),
    "timeout",
    "R...",
  ],
  ["connection error class alone", f({ message: "Connection error.", errorType: "APIConnectionError" }), "timeout", "R..."],
  // 8. nothing recognisable
  ["nothing recognisable", f({ message: "something odd happened" }), "unknown", "R..."],
  ["empty", f({}), "unknown", "R..."],
];

describe("classifyError: detection in Hermes Agent's order", () => {
  it.each(ROWS.map((r) => [...r] as [string, ErrorFacts, FailoverReason, string, Partial<ClassifiedError> | undefined]))(
    "%s",
    (_name, facts, reason, flags, extra) => {
      const c = classifyError(facts);
      expect(c.reason).toBe(reason);
      expect(flagsOf(c)).toBe(flags);
      if (extra) expect(c).toMatchObject(extra);
    },
  );

  it("keeps the status and a readable, bounded message", () => {
    const c = classifyError(f({ status: 500, body: openaiBody("x".repeat(2000), null, "server_error") }));
    expect(c.status).toBe(500);
    expect(c.message.length).toBeLessThanOrEqual(700);
    expect(classifyError(f({ status: 401, body: anthropicBody("authentication_error", "invalid x-api-key") })).message).toBe("invalid x-api-key");
  });

  it.each([
    [
      "policy block",
      f({ status: 404, body: openaiBody("No endpoints found matching your data policy") }),
      /openrouter\.ai\/settings\/privacy.*retrying or another key will not help/,
    ],
    ["certificate", f({ message: "self signed certificate", code: "DEPTH_ZERO_SELF_SIGNED_CERT" }), /NODE_EXTRA_CA_CERTS.*retrying will not help/],
  ])("tells the user what to do when only they can act: %s", (_n, facts, pattern) => {
    const c = classifyError(facts);
    expect(c).toMatchObject({ userAction: true, retryable: false, shouldFallback: false });
    expect(c.message).toMatch(pattern);
  });

  it.each([
    ["retry-after seconds", { "retry-after": "3" }, 3],
    ["retry-after-ms", { "retry-after-ms": "1500" }, 1.5],
    ["retry-after HTTP date", { "retry-after": new Date(NOW + 9000).toUTCString() }, 9],
    ["x-ratelimit-reset epoch seconds", { "x-ratelimit-reset": String(NOW / 1000 + 42) }, 42],
    ["x-ratelimit-reset epoch ms", { "x-ratelimit-reset": String(NOW + 4000) }, 4],
    ["x-ratelimit-reset-requests go duration", { "x-ratelimit-reset-requests": "1m30s" }, 90],
    ["x-ratelimit-reset-tokens ms", { "x-ratelimit-reset-tokens": "250ms" }, 0.25],
    [
      "anthropic ISO reset (longest dimension)",
      { "anthropic-ratelimit-requests-reset": new Date(NOW + 5000).toISOString(), "anthropic-ratelimit-tokens-reset": new Date(NOW + 20_000).toISOString() },
      20,
    ],
  ])("reads retryAfterS from headers: %s", (_n, headers, expected) => {
    expect(classifyError(f({ status: 429, headers, message: "rate limited" })).retryAfterS).toBeCloseTo(expected, 3);
  });

  it.each([
    ["body retry_after", { error: { message: "slow", retry_after: 8 } }, 8],
    ["body reset_at ISO", { error: { message: "slow", reset_at: new Date(NOW + 60_000).toISOString() } }, 60],
    ["body resets_at epoch s", { error: { message: "slow", resets_at: NOW / 1000 + 30 } }, 30],
    [
      "openrouter metadata headers (epoch ms)",
      { error: { message: "Rate limit exceeded", code: 429, metadata: { headers: { "X-RateLimit-Reset": String(NOW + 11_000) } } } },
      11,
    ],
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
    const err = Object.assign(new Error("429 rate limited"), {
      status: 429,
      headers: new Headers({ "Retry-After": "5" }),
      error: { message: "slow down", type: "rate_limit_error" },
    });
    const facts = factsFromError(err, { nowMs: NOW, provider: "openai", approxTokens: 10, numMessages: 2, contextLength: 100 });
    expect(facts).toMatchObject({
      status: 429,
      headers: { "retry-after": "5" },
      body: { message: "slow down" },
      provider: "openai",
      approxTokens: 10,
      numMessages: 2,
      contextLength: 100,
    });
    expect(classifyError(facts)).toMatchObject({ reason: "rate_limit", retryAfterS: 5 });
  });

  it("uses a status found anywhere along the cause chain", () => {
    const apiError = Object.assign(new Error("402 Payment Required"), { status: 402, error: { message: "Insufficient credits." } });
    const wrapped = new Error("model call failed after retries", { cause: new Error("attempt 3 failed", { cause: apiError }) });
    const facts = factsFromError(wrapped, { nowMs: NOW });
    expect(facts.status).toBe(402);
    expect(classifyError(facts)).toMatchObject({ reason: "billing", shouldFallback: true });
  });
});
