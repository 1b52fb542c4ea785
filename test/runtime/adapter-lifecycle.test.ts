/**
 * A platform that fails to connect is retried in the background, unless its
 * adapter says the failure is fatal (a rejected token): that is logged once
 * and not retried.
 */
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AdapterHealth, InboundSink } from "../../adapters/types.js";
import { startAdapters } from "../../gateway/wiring/adapter-lifecycle.js";
import { TestAdapter } from "../fakes/test-adapter.js";

/** Fails every start; its health says whether that is fatal. */
class FailingAdapter extends TestAdapter {
  starts = 0;
  constructor(
    platform: string,
    private readonly state: AdapterHealth["state"],
  ) {
    super(platform);
  }
  override async start(_sink: InboundSink): Promise<void> {
    this.starts++;
    throw new Error("cannot connect");
  }
  override health(): AdapterHealth {
    return { state: this.state };
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe("adapter connection retries", () => {
  it("retries a failed platform after 30 s, but never one whose failure is fatal", async () => {
    vi.useFakeTimers();
    const flaky = new FailingAdapter("flaky", "retrying");
    const fatal = new FailingAdapter("fatal", "fatal");
    const stop = new AbortController();
    const sink: InboundSink = { deliver: async () => ({ status: "accepted" }) };
    await startAdapters(new Map([["flaky", flaky], ["fatal", fatal]]), sink, 1000, pino({ level: "silent" }), stop.signal);
    expect([flaky.starts, fatal.starts]).toEqual([1, 1]);
    await vi.advanceTimersByTimeAsync(31_000);
    expect([flaky.starts, fatal.starts]).toEqual([2, 1]);
    await vi.advanceTimersByTimeAsync(61_000);
    expect([flaky.starts, fatal.starts]).toEqual([3, 1]);
    stop.abort();
  });
});
