import { describe, expect, it } from "vitest";
import { OutboundScheduler } from "../../adapters/shared/scheduler.js";
import { AdapterSendError } from "../../adapters/types.js";
import { FakeClock } from "../fakes/fake-clock.js";

const LIMITS = { perChatPerS: 1, perGroupPerMin: 20, globalPerS: 30 };

function setup(overrides: Partial<ConstructorParameters<typeof OutboundScheduler>[0]> = {}) {
  const clock = new FakeClock({ start: 0 });
  const scheduler = new OutboundScheduler({ limits: LIMITS, clock, random: () => 0.5, ...overrides });
  const starts: Array<{ chat: string; label: string; at: number }> = [];
  const task =
    (chat: string, label: string, outcome: () => unknown = () => label) =>
    async () => {
      starts.push({ chat, label, at: clock.now() });
      return outcome();
    };
  return { clock, scheduler, starts, task };
}

describe("OutboundScheduler", () => {
  it("paces one chat at its per-chat rate and keeps FIFO order", async () => {
    const { clock, scheduler, starts, task } = setup();
    const done = ["a", "b", "c"].map((l) => scheduler.schedule(task("1", l), { chatId: "1" }));
    await clock.advance(2500);
    expect(await Promise.all(done)).toEqual(["a", "b", "c"]);
    expect(starts.map((s) => [s.label, s.at])).toEqual([["a", 0], ["b", 1000], ["c", 2000]]);
  });

  it("lets different chats go in parallel under the global limit", async () => {
    const { clock, scheduler, starts, task } = setup({ limits: { ...LIMITS, globalPerS: 4 } });
    for (let i = 1; i <= 6; i++) void scheduler.schedule(task(String(i), `m${i}`), { chatId: String(i) });
    await clock.advance(2000);
    expect(starts.map((s) => s.at)).toEqual([0, 250, 500, 750, 1000, 1250]);
  });

  it("a timer that fires a little late does not push later slots back; a long stall is not made up", async () => {
    const { clock, scheduler, starts, task } = setup({ limits: { ...LIMITS, globalPerS: 10 } });
    for (let i = 1; i <= 3; i++) void scheduler.schedule(task(String(i), `m${i}`), { chatId: String(i) });
    clock.lateMs = 20; // the loop was busy when the second slot came
    await clock.advance(1);
    clock.lateMs = 0;
    await clock.advance(500);
    // 100 ms slots: the second call starts 20 ms late, the third keeps its slot at 200 ms.
    expect(starts.map((s) => s.at)).toEqual([0, 120, 200]);

    const late = setup({ limits: { ...LIMITS, globalPerS: 10 } });
    for (let i = 1; i <= 3; i++) void late.scheduler.schedule(late.task(String(i), `m${i}`), { chatId: String(i) });
    late.clock.lateMs = 60; // more than half an interval: starting the next call sooner would bunch them
    await late.clock.advance(1);
    late.clock.lateMs = 0;
    await late.clock.advance(500);
    expect(late.starts.map((s) => s.at)).toEqual([0, 160, 260]);
  });

  it("headroom stretches every interval", async () => {
    const { clock, scheduler, starts, task } = setup({ headroom: 0.8 });
    for (const l of ["a", "b"]) void scheduler.schedule(task("1", l), { chatId: "1" });
    await clock.advance(2000);
    expect(starts.map((s) => s.at)).toEqual([0, 1250]);
  });

  it("paces a group at its per-minute rate", async () => {
    const { clock, scheduler, starts, task } = setup();
    for (const l of ["a", "b", "c"]) void scheduler.schedule(task("-100", l), { chatId: "-100", group: true });
    await clock.advance(7000);
    expect(starts.map((s) => s.at)).toEqual([0, 3000, 6000]);
  });

  it("honours retry_after exactly: no call to that chat inside the window, order kept", async () => {
    const { clock, scheduler, starts, task } = setup();
    let first = true;
    const limited = task("7", "a", () => {
      if (first) {
        first = false;
        throw new AdapterSendError("429", "rate_limit", 5000);
      }
      return "a";
    });
    const a = scheduler.schedule(limited, { chatId: "7" });
    const b = scheduler.schedule(task("7", "b"), { chatId: "7" });
    const other = scheduler.schedule(task("8", "x"), { chatId: "8" });
    await clock.advance(4999);
    expect(starts.filter((s) => s.chat === "7").map((s) => s.at)).toEqual([0]);
    expect(await other).toBe("x");
    await clock.advance(1001);
    expect(await a).toBe("a");
    expect(await b).toBe("b");
    expect(starts.filter((s) => s.chat === "7").map((s) => [s.label, s.at])).toEqual([["a", 0], ["a", 5000], ["b", 6000]]);
  });

  it("fails fast when retry_after exceeds maxRateLimitWaitMs, but still keeps the chat paused", async () => {
    const { clock, scheduler, starts, task } = setup();
    const preview = scheduler.schedule(
      task("7", "p", () => {
        throw new AdapterSendError("429", "rate_limit", 3000);
      }),
      { chatId: "7", maxRateLimitWaitMs: 0 },
    );
    await expect(preview).rejects.toMatchObject({ kind: "rate_limit", retryAfterMs: 3000 });
    const final = scheduler.schedule(task("7", "final"), { chatId: "7" });
    await clock.advance(2999);
    expect(starts.map((s) => s.label)).toEqual(["p"]);
    await clock.advance(1);
    expect(await final).toBe("final");
    expect(starts.at(-1)?.at).toBe(3000);
  });

  it("a 429 on a chat-less call pauses every chat", async () => {
    const { clock, scheduler, starts, task } = setup();
    let first = true;
    void scheduler.schedule(
      task("*", "global", () => {
        if (first) {
          first = false;
          throw new AdapterSendError("429", "rate_limit", 2000);
        }
        return "g";
      }),
    );
    await clock.advance(10);
    void scheduler.schedule(task("5", "x"), { chatId: "5" });
    await clock.advance(1000);
    expect(starts.map((s) => s.label)).toEqual(["global"]);
    await clock.advance(1100);
    expect(starts.map((s) => s.label).sort()).toEqual(["global", "global", "x"]);
    expect(starts.find((s) => s.label === "x")?.at).toBeGreaterThanOrEqual(2010);
  });

  it("retries network and server errors with backoff, then succeeds", async () => {
    const { clock, scheduler, starts, task } = setup({ backoffBaseMs: 500, limits: { ...LIMITS, perChatPerS: 100 } });
    let n = 0;
    const flaky = scheduler.schedule(
      task("1", "f", () => {
        n++;
        if (n === 1) throw new AdapterSendError("down", "network");
        if (n === 2) throw new AdapterSendError("502", "server");
        return "ok";
      }),
      { chatId: "1" },
    );
    await clock.advance(3000);
    expect(await flaky).toBe("ok");
    // 0, then +500 backoff, then +1000 (jitter 1.0 with random 0.5).
    expect(starts.map((s) => s.at)).toEqual([0, 500, 1500]);
  });

  it("gives up after maxAttempts and rejects with the last error; rejections are not retried", async () => {
    const { clock, scheduler, starts, task } = setup({ maxAttempts: 3, backoffBaseMs: 100 });
    const down = scheduler.schedule(
      task("1", "d", () => {
        throw new AdapterSendError("down", "network");
      }),
      { chatId: "1" },
    );
    const denied = scheduler.schedule(
      task("2", "r", () => {
        throw new AdapterSendError("forbidden", "rejected");
      }),
      { chatId: "2" },
    );
    const downResult = down.catch((e: unknown) => e);
    const deniedResult = denied.catch((e: unknown) => e);
    await clock.advance(5000);
    expect(await deniedResult).toMatchObject({ kind: "rejected" });
    expect(await downResult).toMatchObject({ kind: "network" });
    expect(starts.filter((s) => s.chat === "1")).toHaveLength(3);
    expect(starts.filter((s) => s.chat === "2")).toHaveLength(1);
  });

  it("an aborted queued call is removed without blocking the chat", async () => {
    const { clock, scheduler, starts, task } = setup();
    const ctrl = new AbortController();
    const a = scheduler.schedule(task("1", "a"), { chatId: "1" });
    const b = scheduler.schedule(task("1", "b"), { chatId: "1", signal: ctrl.signal });
    const c = scheduler.schedule(task("1", "c"), { chatId: "1" });
    ctrl.abort(new Error("cancelled"));
    await expect(b).rejects.toThrow("cancelled");
    await clock.advance(1000);
    expect(await Promise.all([a, c])).toEqual(["a", "c"]);
    expect(starts.map((s) => s.label)).toEqual(["a", "c"]);
  });

  it("coalesces a waiting call with the same key (typing)", async () => {
    const { clock, scheduler, starts, task } = setup();
    void scheduler.schedule(task("1", "msg"), { chatId: "1" });
    const t1 = scheduler.schedule(task("1", "typing"), { chatId: "1", coalesceKey: "typing" });
    const t2 = scheduler.schedule(task("1", "typing2"), { chatId: "1", coalesceKey: "typing" });
    expect(t2).toBe(t1);
    await clock.advance(1000);
    expect(starts.map((s) => s.label)).toEqual(["msg", "typing"]);
  });

  it("drain waits for queued calls; close rejects what is left", async () => {
    const { clock, scheduler, task } = setup();
    const a = scheduler.schedule(task("1", "a"), { chatId: "1" });
    const b = scheduler.schedule(task("1", "b"), { chatId: "1" });
    let drained = false;
    const d = scheduler.drain().then(() => (drained = true));
    await clock.advance(500);
    expect(drained).toBe(false);
    await clock.advance(600);
    await d;
    expect(await Promise.all([a, b])).toEqual(["a", "b"]);
    const c = scheduler.schedule(task("1", "c"), { chatId: "1" });
    const e = scheduler.schedule(task("1", "e"), { chatId: "1" });
    scheduler.close();
    await expect(e).rejects.toBeInstanceOf(AdapterSendError);
    await c.catch(() => undefined);
    await expect(scheduler.schedule(task("1", "late"), { chatId: "1" })).rejects.toBeInstanceOf(AdapterSendError);
  });
});

describe("OutboundScheduler start deadlines", () => {
  it("rejects a call that could not start in time, without blocking the ones behind it", async () => {
    const { clock, scheduler, starts, task } = setup();
    void scheduler.schedule(task("1", "msg"), { chatId: "1" });
    const typing = scheduler.schedule(task("1", "typing"), { chatId: "1", startWithinMs: 500 });
    const after = scheduler.schedule(task("1", "after"), { chatId: "1" });
    const typingResult = typing.catch((e: unknown) => e);
    await clock.advance(1000);
    expect(await typingResult).toMatchObject({ kind: "rate_limit" });
    expect(await after).toBe("after");
    expect(starts.map((s) => [s.label, s.at])).toEqual([["msg", 0], ["after", 1000]]);
  });
});

describe("OutboundScheduler chat actions (lowPriority)", () => {
  it("typing takes no message slot: the reply right after it goes at once, the next message a second later", async () => {
    const { clock, scheduler, starts, task } = setup();
    void scheduler.schedule(task("1", "typing"), { chatId: "1", lowPriority: true });
    await clock.advance(50);
    void scheduler.schedule(task("1", "reply"), { chatId: "1" });
    void scheduler.schedule(task("1", "more"), { chatId: "1" });
    await clock.advance(2000);
    expect(starts.map((s) => [s.label, s.at])).toEqual([["typing", 0], ["reply", 50], ["more", 1050]]);
  });

  it("typing in a group does not spend the group's per-minute budget", async () => {
    const { clock, scheduler, starts, task } = setup();
    for (let i = 0; i < 5; i++) {
      void scheduler.schedule(task("-100", `typing${i}`), { chatId: "-100", group: true, lowPriority: true });
      await clock.advance(1000);
    }
    void scheduler.schedule(task("-100", "reply"), { chatId: "-100", group: true });
    await clock.advance(10);
    expect(starts.at(-1)).toEqual({ chat: "-100", label: "reply", at: 5000 });
  });

  it("still shares the global budget", async () => {
    const { clock, scheduler, starts, task } = setup({ limits: { ...LIMITS, globalPerS: 2 } });
    void scheduler.schedule(task("1", "msg"), { chatId: "1" });
    void scheduler.schedule(task("2", "typing"), { chatId: "2", lowPriority: true });
    await clock.advance(1000);
    expect(starts.map((s) => [s.label, s.at])).toEqual([["msg", 0], ["typing", 500]]);
  });

  it("a queued typing call gives way to a message queued behind it, and the message keeps its place", async () => {
    const { clock, scheduler, starts, task } = setup();
    void scheduler.schedule(task("1", "first"), { chatId: "1" });
    const typing = scheduler.schedule(task("1", "typing"), { chatId: "1", lowPriority: true }).catch((e: unknown) => e);
    void scheduler.schedule(task("1", "second"), { chatId: "1" });
    await clock.advance(1500);
    expect(await typing).toMatchObject({ kind: "rate_limit" });
    expect(starts.map((s) => [s.label, s.at])).toEqual([["first", 0], ["second", 1000]]);
  });
});
