/**
 * The context window that sets the compression thresholds follows the model a
 * turn asks for: a session's /model override may have a much smaller (or
 * larger) window than the configured model.
 */
import { describe, expect, it } from "vitest";
import { estimateTokens, type Message } from "../../agent/index.js";
import { Compression } from "../../gateway/agent-turn/compression.js";
import { toolStateOver } from "../../gateway/tools-session.js";
import { testConfig } from "../runtime/helpers/harness.js";

const WINDOWS: Record<string, number> = { "small-model": 8_000 };
const CONFIGURED = 200_000;

function compression(): Compression {
  const config = testConfig({ compression: { gateway_threshold: 0.85 } });
  return new Compression({ config, auxiliary: undefined, contextLength: (model) => (model ? (WINDOWS[model] ?? CONFIGURED) : CONFIGURED) });
}

/** About `tokens` tokens of alternating user/assistant messages. */
function history(tokens: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; estimateTokens(out) < tokens; i++) out.push({ role: i % 2 ? "assistant" : "user", content: `message ${i} ${"x".repeat(400)}` });
  return out;
}

describe("the window of the session's model", () => {
  it("sets the gateway threshold: a history that fits the configured model overflows a smaller /model choice", () => {
    const c = compression();
    const h = history(7_000);
    expect(c.needsGatewayCompression(h, 0)).toBe(false);
    expect(c.needsGatewayCompression(h, 0, "small-model")).toBe(true);
    expect(c.needsGatewayCompression(h, 0, "some-big-model")).toBe(false);
  });

  it("is what a turn's compression hook measures against", () => {
    const c = compression();
    expect(c.forTurn(toolStateOver(new Map()), { system: "", tools: [], model: "small-model" }).contextLength).toBe(8_000);
    expect(c.forTurn(toolStateOver(new Map()), { system: "", tools: [] }).contextLength).toBe(CONFIGURED);
  });
});

describe("the output a request reserves", () => {
  it.each([
    ["no max_tokens: 85 % of the whole window", undefined, 169_000, false],
    ["no max_tokens: past 85 % of the whole window", undefined, 171_000, true],
    ["max_tokens 64K: 85 % of the 136K left", 64_000, 116_000, true],
  ] as const)("%s", (_n, maxTokens, tokens, compresses) => {
    const config = testConfig({ compression: { gateway_threshold: 0.85 }, ...(maxTokens ? { model: { max_tokens: maxTokens } } : {}) });
    const c = new Compression({ config, auxiliary: undefined, contextLength: () => CONFIGURED });
    expect(c.needsGatewayCompression(history(tokens), 0)).toBe(compresses);
  });

  it("and the loop's trigger: a 64K window does not compress at half of it", () => {
    const c = new Compression({ config: testConfig({}), auxiliary: undefined, contextLength: () => 64_000 });
    expect(c.reachesTrigger(32_000)).toBe(false);
    expect(c.reachesTrigger(54_399)).toBe(false);
    expect(c.reachesTrigger(54_400)).toBe(true);
  });
});
