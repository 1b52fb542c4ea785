import { afterEach, describe, expect, it } from "vitest";
import type { ClassifiedError, ProviderEvent, StreamFn } from "../../agent/types.js";
import { ZERO_USAGE } from "../../agent/types.js";
import { createMetrics, type Metrics, timedStream } from "../../gateway/metrics.js";

let metrics: Metrics;
afterEach(() => metrics?.close());

const overloaded: ClassifiedError = {
  reason: "overloaded",
  message: "busy",
  retryable: true,
  shouldCompress: false,
  shouldRotateCredential: false,
  shouldFallback: true,
};

/** A scripted model: yields `events`, each after a wait of `gapMs`. */
function scripted(events: readonly ProviderEvent[], gapMs: number): StreamFn {
  return async function* () {
    for (const e of events) {
      await new Promise((r) => setTimeout(r, gapMs));
      yield e;
    }
  };
}

async function drain(stream: StreamFn): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  const request = { model: "m", system: "", messages: [], tools: [] };
  for await (const e of stream(request, new AbortController().signal)) out.push(e);
  return out;
}

async function series(name: string): Promise<string[]> {
  const { body } = await metrics.render();
  return body.split("\n").filter((l) => l.startsWith(name));
}

describe("metrics", () => {
  it("times each model request to its first output and to its end, by provider and outcome, passing the events through", async () => {
    metrics = createMetrics();
    const done: ProviderEvent = { type: "done", message: { role: "assistant", content: "hi" }, usage: ZERO_USAGE };
    const ok: ProviderEvent[] = [{ type: "start" }, { type: "text_delta", delta: "hi" }, done];
    expect(await drain(timedStream(scripted(ok, 20), metrics, () => "openrouter"))).toEqual(ok);
    await drain(timedStream(scripted([{ type: "start" }, { type: "error", error: overloaded }], 5), metrics, () => "custom"));

    expect(await series("hermes_provider_first_token_seconds_count")).toEqual(['hermes_provider_first_token_seconds_count{provider="openrouter"} 1']);
    expect(await series("hermes_provider_request_duration_seconds_count")).toEqual([
      'hermes_provider_request_duration_seconds_count{provider="openrouter",outcome="ok"} 1',
      'hermes_provider_request_duration_seconds_count{provider="custom",outcome="overloaded"} 1',
    ]);
    // Two waits before the first text, three before the end.
    const firstToken = Number((await series("hermes_provider_first_token_seconds_sum"))[0]?.split(" ")[1]);
    const whole = Number((await series('hermes_provider_request_duration_seconds_sum{provider="openrouter"'))[0]?.split(" ")[1]);
    expect(firstToken).toBeGreaterThanOrEqual(0.035);
    expect(whole).toBeGreaterThanOrEqual(0.055);
    expect(whole).toBeGreaterThan(firstToken);
  });

  it("turn stages and turn durations are histograms with their labels", async () => {
    metrics = createMetrics();
    metrics.turnStage.observe({ platform: "telegram", stage: "committed" }, 0.0004);
    metrics.turnDuration.observe({ platform: "telegram", outcome: "completed" }, 1.2);
    expect(await series('hermes_turn_stage_seconds_bucket{le="0.0005",platform="telegram",stage="committed"}')).toEqual([
      'hermes_turn_stage_seconds_bucket{le="0.0005",platform="telegram",stage="committed"} 1',
    ]);
    expect(await series("hermes_turn_duration_seconds_count")).toEqual(['hermes_turn_duration_seconds_count{platform="telegram",outcome="completed"} 1']);
  });
});
