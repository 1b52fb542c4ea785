/**
 * The MCP bench's attribution of daemon stalls to the machine: how much of a
 * daemon stall no machine stall covers, and the probes themselves where this
 * machine lets them run (root, taskset, chrt).
 */
import { describe, expect, it } from "vitest";
import { type Stall, startMachineProbes, uncoveredMs } from "../machine-probe.js";

/** A stall from `fromMs` to `toMs` on a clock starting at 1,000 s. */
const stall = (fromMs: number, toMs: number): Stall => ({ endNs: BigInt(1_000_000 + toMs) * 1_000_000n, lateMs: toMs - fromMs });

describe("uncoveredMs", () => {
  it("is the whole stall when no machine stall touches it", () => {
    expect(uncoveredMs(stall(100, 130), [])).toBe(30);
    expect(uncoveredMs(stall(100, 130), [stall(50, 99), stall(131, 140)])).toBe(30);
  });

  it("takes out what machine stalls cover, overlapping ones once, and only inside the stall", () => {
    expect(uncoveredMs(stall(100, 130), [stall(90, 110)])).toBeCloseTo(20, 6);
    expect(uncoveredMs(stall(100, 130), [stall(105, 115), stall(110, 120)])).toBeCloseTo(15, 6);
    expect(uncoveredMs(stall(100, 130), [stall(90, 140)])).toBe(0);
    expect(uncoveredMs(stall(100, 130), [stall(102, 104), stall(120, 125), stall(121, 122)])).toBeCloseTo(23, 6);
  });
});

describe("startMachineProbes", () => {
  it("runs one probe per CPU and leaves no process behind, or says why it cannot", async () => {
    const probes = await startMachineProbes();
    if (probes.kind === "off") {
      expect(probes.why).toMatch(/not Linux|not root|not found|exited/);
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
    const stalls = await probes.stop();
    expect(probes.cpus).toBeGreaterThan(0);
    for (const s of stalls) expect(s.lateMs).toBeGreaterThanOrEqual(2);
    const { execFileSync } = await import("node:child_process");
    expect(execFileSync("ps", ["-eo", "args"]).toString()).not.toContain("hrtime.bigint(); const late");
  });
});
