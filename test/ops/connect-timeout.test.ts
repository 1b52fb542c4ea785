/**
 * A platform that never answers is given up on after
 * gateway.platform_connect_timeout_s, even when garbage collections run
 * meanwhile (the daemon then reports it in backoff instead of waiting forever).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { InboundSink } from "../../adapters/types.js";
import { startAdapters } from "../../gateway/wiring/adapter-lifecycle.js";
import { TestAdapter } from "../fakes/test-adapter.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Connecting never succeeds: start() settles only when its signal aborts. */
class SilentPlatform extends TestAdapter {
  override start(_sink: InboundSink, signal?: AbortSignal): Promise<void> {
    return new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("connect timed out")), { once: true }));
  }
}

describe("platform connect timeout", () => {
  it("fires although collections run while the platform is silent", async () => {
    const collecting = setInterval(gc, 20);
    const started = startAdapters(
      new Map([["silent", new SilentPlatform("silent")]]),
      {} as InboundSink,
      300,
      pino({ level: "silent" }),
      new AbortController().signal,
    );
    try {
      const outcome = await Promise.race([started.then(() => "gave up"), new Promise((r) => setTimeout(() => r("still waiting after 5 s"), 5000))]);
      expect(outcome).toBe("gave up");
    } finally {
      clearInterval(collecting);
      await (await started).stop(AbortSignal.timeout(1000)); // ends the background retry
    }
  });
});
