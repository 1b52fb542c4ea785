/**
 * config/linked-signal.ts under V8's garbage collector (collections forced with --expose-gc, set at run time): its
 * deadline timer holds the controller it aborts, so no collection loses the deadline.
 */
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { linkedSignal } from "../../config/linked-signal.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("linkedSignal under garbage collection", () => {
  it("fires its deadline although garbage collections run while it waits (AbortSignal.any over AbortSignal.timeout may not, on Node 20)", async () => {
    const caller = new AbortController();
    const link = linkedSignal([caller.signal], 100);
    const collecting = setInterval(gc, 10);
    try {
      const outcome = await Promise.race([once(link.signal, "abort").then(() => "fired"), sleep(3000).then(() => "not fired after 3 s")]);
      expect(outcome).toBe("fired");
      expect(link.signal.reason).toMatchObject({ name: "TimeoutError" });
    } finally {
      clearInterval(collecting);
      link.dispose();
    }
  });
});
