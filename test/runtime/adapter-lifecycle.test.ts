/**
 * A platform that fails to connect is retried in the background, unless the
 * failure is one no retry can fix: its adapter says it is fatal (a rejected
 * token), or it is a configuration error (HGW_ERR_CONFIG_*). That is logged
 * once and not retried. Retries outlive the start-up deadline and end with
 * the supervisor's stop().
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AdapterHealth, InboundSink } from "../../adapters/types.js";
import { HermesError } from "../../config/errors.js";
import { startAdapters } from "../../gateway/wiring/adapter-lifecycle.js";
import { TestAdapter } from "../fakes/test-adapter.js";
import { captureLogger } from "../log-capture.js";

/** Fails every start with `error`; its health says whether that is fatal. */
class FailingAdapter extends TestAdapter {
  starts = 0;
  constructor(
    platform: string,
    private readonly state: AdapterHealth["state"],
    private readonly error: () => Error = () => new Error("cannot connect"),
  ) {
    super(platform);
  }
  override async start(_sink: InboundSink): Promise<void> {
    this.starts++;
    throw this.error();
  }
  override health(): AdapterHealth {
    return { state: this.state };
  }
}

const sink: InboundSink = { deliver: async () => ({ status: "accepted" }) };

afterEach(() => {
  vi.useRealTimers();
});

describe("adapter connection retries", () => {
  it("retries a failed platform after 30 s, but never one whose failure is fatal", async () => {
    vi.useFakeTimers();
    const flaky = new FailingAdapter("flaky", "retrying");
    const fatal = new FailingAdapter("fatal", "fatal");
    const { log } = captureLogger();
    const supervisor = await startAdapters(
      new Map([
        ["flaky", flaky],
        ["fatal", fatal],
      ]),
      sink,
      1000,
      log,
      new AbortController().signal,
    );
    expect([flaky.starts, fatal.starts]).toEqual([1, 1]);
    await vi.advanceTimersByTimeAsync(31_000);
    expect([flaky.starts, fatal.starts]).toEqual([2, 1]);
    await vi.advanceTimersByTimeAsync(61_000);
    expect([flaky.starts, fatal.starts]).toEqual([3, 1]);
    await supervisor.stop(new AbortController().signal);
  });

  it("never retries a configuration error, even when the adapter's health does not say fatal, and says so once", async () => {
    vi.useFakeTimers();
    const misconfigured = new FailingAdapter(
      "telegram",
      "starting",
      () => new HermesError("HGW_ERR_CONFIG_INVALID", "transport: webhook needs gateway.platforms.telegram.webhook_url and webhook_secret."),
    );
    const { log, lines } = captureLogger();
    const supervisor = await startAdapters(new Map([["telegram", misconfigured]]), sink, 1000, log, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(20 * 60_000);
    expect(misconfigured.starts).toBe(1);
    const said = lines.filter((l) => l.platform === "telegram" && l.level >= 50);
    expect(said.map((l) => l.msg)).toEqual(["platform cannot connect and is not retried; fix its configuration and restart"]);
    expect(JSON.stringify(said[0]?.err)).toContain("HGW_ERR_CONFIG_INVALID");
    await supervisor.stop(new AbortController().signal);
  });

  it("goes on retrying after the start-up signal has ended, and stops retrying on stop()", async () => {
    vi.useFakeTimers();
    const flaky = new FailingAdapter("flaky", "retrying");
    const startup = new AbortController();
    const { log } = captureLogger();
    const supervisor = await startAdapters(new Map([["flaky", flaky]]), sink, 1000, log, startup.signal);
    startup.abort(new DOMException("start-up deadline", "TimeoutError"));
    await vi.advanceTimersByTimeAsync(31_000);
    expect(flaky.starts).toBe(2);
    await supervisor.stop(new AbortController().signal);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(flaky.starts).toBe(2);
  });
});
