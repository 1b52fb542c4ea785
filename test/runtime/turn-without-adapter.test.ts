/**
 * A turn whose platform has no adapter in the runtime (it was taken away
 * while the turn waited in its session's queue) fails cleanly: its message is
 * marked failed with one log line, nothing rejects, and the session goes on.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Adapter } from "../../adapters/types.js";
import { until } from "../e2e/helpers.js";
import { TestAdapter } from "../fakes/test-adapter.js";
import { captureLogger } from "../log-capture.js";
import { type Harness, makeHarness } from "./helpers/harness.js";
import { completed, inputText, ScriptedRunner } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a turn without an adapter", () => {
  it("fails its message with one log line, never rejects, and the session runs the next turn", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const runner = new ScriptedRunner(async (req) => {
      if (inputText(req).includes("first")) await held;
      return completed(req, `echo: ${inputText(req)}`);
    });
    const adapter = new TestAdapter("test");
    const adapters = new Map<string, Adapter>([["test", adapter]]);
    const { log, lines } = captureLogger();
    h = await makeHarness({ runner, adapter, adapters, logger: log, config: { gateway: { busy_input_mode: "queue", busy_ack: false } } });
    await h.adapter.message("first");
    await until(() => runner.calls.length === 1, "the first turn");
    await h.adapter.message("second");
    adapters.delete("test");
    release();
    await until(() => h!.raw.inbound.get(2)?.status === "failed", "the second message to fail");
    expect(lines.filter((l) => String(l.msg).includes("no adapter"))).toHaveLength(1);
    expect(runner.calls).toHaveLength(1);

    adapters.set("test", adapter);
    await h.adapter.message("third");
    await h.adapter.waitForText("echo: third");
  });
});
