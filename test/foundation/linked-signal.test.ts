/** config/linked-signal.ts: AbortSignal.any + timeout, with listeners released on dispose. */
import { getEventListeners, once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { linkedSignal } from "../../config/linked-signal.js";

describe("linkedSignal", () => {
  it("aborts with the reason of whichever parent aborts, and lets go of the others", () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkedSignal([a.signal, b.signal]);
    expect(getEventListeners(a.signal, "abort")).toHaveLength(1);
    b.abort("b went");
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe("b went");
    expect(getEventListeners(a.signal, "abort")).toHaveLength(0);
  });

  it("starts aborted when a parent already is, listening to nothing", () => {
    const a = new AbortController();
    const b = new AbortController();
    b.abort("early");
    const link = linkedSignal([a.signal, b.signal], 1000);
    expect(link.signal.reason).toBe("early");
    expect(getEventListeners(a.signal, "abort")).toHaveLength(0);
  });

  it("aborts with a TimeoutError after timeoutMs", async () => {
    const link = linkedSignal([new AbortController().signal], 20);
    await once(link.signal, "abort");
    expect(link.signal.reason).toMatchObject({ name: "TimeoutError" });
  });

  it("aborts with the caller's own reason on timeout when it gives one", async () => {
    const link = linkedSignal([], 10, () => new RangeError("stalled"));
    await once(link.signal, "abort");
    expect(link.signal.reason).toBeInstanceOf(RangeError);
  });

  it("dispose removes the listeners and the timer: nothing aborts afterwards", async () => {
    const a = new AbortController();
    const link = linkedSignal([a.signal], 20);
    link.dispose();
    link.dispose();
    expect(getEventListeners(a.signal, "abort")).toHaveLength(0);
    a.abort("late");
    await new Promise((r) => setTimeout(r, 60));
    expect(link.signal.aborted).toBe(false);
  });

  it("is the only way product code combines signals: no AbortSignal.any anywhere", () => {
    const root = join(import.meta.dirname, "..", "..");
    const offenders = ["config", "agent", "tools", "adapters", "gateway"].flatMap((layer) =>
      (readdirSync(join(root, layer), { recursive: true }) as string[])
        .filter((f) => f.endsWith(".ts") && /AbortSignal\.any\(/.test(readFileSync(join(root, layer, f), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")))
        .map((f) => join(layer, f)),
    );
    expect(offenders).toEqual([]);
  });
});
