/**
 * Background-process notices under gateway.background_notifications: which
 * ends are told, and the progress notices of check_interval (on a fake clock).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { NotificationMode } from "../../tools/terminal/index.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { until } from "./approval-helpers.js";
import { makeRig, type Rig } from "./terminal-helpers.js";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function finish(t: Rig, command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await t.run({ command, background: true, notify_on_complete: true, ...extra });
  const id = String(r.id);
  await t.proc({ action: "wait", id, timeout: 10 });
  return id;
}

const settle = () => new Promise((r) => setTimeout(r, 100));

describe("background process notices", () => {
  it.each<[NotificationMode, boolean, boolean]>([
    ["all", true, true],
    ["result", true, true],
    ["error", false, true],
    ["off", false, false],
  ])("mode %s: a clean end told %s, a failed end told %s", async (mode, clean, failed) => {
    const t = (rig = await makeRig({ notifications: mode }));
    const ok = await finish(t, "echo fine");
    const bad = await finish(t, "echo broken; exit 3");
    if (clean || failed) await until(() => t.notices.length >= Number(clean) + Number(failed));
    await settle();
    expect(t.notices.some((n) => n.includes(ok))).toBe(clean);
    expect(t.notices.some((n) => n.includes(bad) && n.includes("exit code 3"))).toBe(failed);
  });

  it("mode all: check_interval posts the new output while it runs, then the end", async () => {
    const clock = new FakeClock();
    const t = (rig = await makeRig({ notifications: "all", clock }));
    const r = await t.run({ command: "echo step one; sleep 2; echo step two", background: true, check_interval: 10 });
    const id = String(r.id);
    await until(() => t.registry.log(id, undefined, 0, 100).text.includes("step one"));
    await clock.advance(10_000);
    await until(() => t.notices.length === 1);
    expect(t.notices[0]).toBe(`[Background process ${id} is still running~ New output:\nstep one]`);
    await clock.advance(10_000);
    await settle();
    expect(t.notices).toHaveLength(1); // nothing new: no notice
    await t.proc({ action: "wait", id, timeout: 10 });
    await until(() => t.notices.length === 2);
    expect(t.notices[1]).toContain(`[Background process ${id} finished with exit code 0~`);
  });

  it("mode result: check_interval posts no progress, only the end", async () => {
    const clock = new FakeClock();
    const t = (rig = await makeRig({ notifications: "result", clock }));
    const r = await t.run({ command: "echo working; sleep 1", background: true, check_interval: 10 });
    const id = String(r.id);
    await until(() => t.registry.log(id, undefined, 0, 100).text.includes("working"));
    await clock.advance(30_000);
    await settle();
    expect(t.notices).toEqual([]);
    await t.proc({ action: "wait", id, timeout: 10 });
    await until(() => t.notices.length === 1);
    expect(t.notices[0]).toContain("finished with exit code 0");
  });
});
