/**
 * Stopping and restarting the real daemon with turns in flight: SIGTERM
 * drains (no new turn starts, the running one finishes within
 * gateway.drain_timeout_s) and exits 0; SIGUSR1 does the same and exits 75;
 * a turn still running when the drain ends is cut and its chat is told.
 * A message that arrived during the drain is answered after the next start.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { statusCommand } from "../../gateway/cli/status.js";
import type { StatusReport } from "../../gateway/cli/status-render.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { until } from "../e2e/helpers.js";
import { ADA, dmText } from "../fakes/telegram-updates.js";
import { type DaemonRig, openDaemonRig, userText } from "./daemon-rig.js";
import { captureIo, eventually } from "./helpers.js";

let rig: DaemonRig;
beforeEach(async () => {
  rig = await openDaemonRig();
});
afterEach(async () => rig.close());

/** busy_input_mode interrupt (the default): a new message in a busy chat cuts the running turn, but not during a drain. */
const configure = (drainTimeoutS: number) => rig.configure({ busy_input_mode: "interrupt", drain_timeout_s: drainTimeoutS });

describe("drain", () => {
  it("SIGTERM: the running turn finishes and is delivered, a new message neither interrupts it nor starts a turn, exit 0; that message is answered after the next start", async () => {
    await configure(20);
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    rig.llm.respondWith(async (req) => {
      if (userText(req).includes("first")) await held;
      return { text: `answer to ${userText(req)}` };
    });
    const d = rig.start();
    await d.waitForLog("hermes-gateway ready");
    rig.tg.pushUpdate(dmText("first"));
    await rig.llm.waitForRequests(1, 10_000);

    d.child.kill("SIGTERM");
    await d.waitForLog("stopping");
    rig.tg.pushUpdate(dmText("second"));
    const draining = await eventually(
      async () => {
        const io = captureIo();
        const code = await statusCommand(["--json"], rig.env(), io);
        const report = JSON.parse(io.stdout()) as StatusReport;
        return code === 1 && report.daemon?.state === "draining" ? report : null;
      },
      "status to say draining",
      10_000,
    );
    expect(draining.problem).toBe("degraded (draining)");
    await new Promise((r) => setTimeout(r, 1500)); // two polls: the new message has long arrived
    expect(rig.llm.completions()).toHaveLength(1); // … and started no turn

    release();
    expect(await d.exited).toBe(0);
    expect(rig.textsTo(ADA.id)).toContain("answer to first");
    expect(rig.textsTo(ADA.id).some((t) => t.includes("second"))).toBe(false);

    const next = rig.start();
    await until(() => rig.textsTo(ADA.id).includes("answer to second"), "the message from the drain answered after the restart");
    expect(
      rig.llm
        .completions()
        .map(userText)
        .filter((t) => t.includes("second")),
    ).toHaveLength(1);
    next.child.kill("SIGTERM");
    expect(await next.exited).toBe(0);
  });

  for (const [signal, exit, notice] of [
    ["SIGUSR1", 75, TEXT.restarting],
    ["SIGTERM", 0, TEXT.shuttingDown],
  ] as const) {
    it(`${signal}: a turn still running when the drain ends is cut, its chat is told, exit ${exit}`, async () => {
      await configure(1);
      rig.llm.respondWith(() => ({ hang: "before_headers" }));
      const d = rig.start();
      await d.waitForLog("hermes-gateway ready");
      rig.tg.pushUpdate(dmText("a long task"));
      await rig.llm.waitForRequests(1, 10_000);
      d.child.kill(signal);
      expect(await d.exited).toBe(exit);
      expect(rig.textsTo(ADA.id)).toContain(notice);
    });
  }
});
