import { afterEach, describe, expect, it } from "vitest";
import { type NewCronJob, openStore, type Store } from "../../gateway/store/index.js";
import { tempDir } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function job(id: string, over: Partial<NewCronJob> = {}): NewCronJob {
  return {
    id,
    name: `job ${id}`,
    prompt: "check the disks",
    schedule: "every 1m",
    timezone: null,
    deliver: "origin",
    origin: null,
    model: null,
    timeoutS: null,
    createdBy: "42",
    createdAt: 1000,
    nextRunAt: 1060,
    ...over,
  };
}

function memory(): Store {
  const store = openStore(":memory:");
  cleanups.push(() => store.close());
  return store;
}

describe("cron store", () => {
  it("claims each slot of a job once, even across a reopen, and moves the next slot in the same transaction", () => {
    const { file, cleanup } = tempDir();
    cleanups.push(cleanup);
    let store = openStore(file);
    store.cron.insertJob(job("a"));
    const run = store.cron.claimRun("a", 1060, "schedule", 1061, 1120);
    expect(run).toEqual(expect.any(Number));
    expect(store.cron.getJob("a")?.nextRunAt).toBe(1120);
    store.close();
    store = openStore(file);
    cleanups.push(() => store.close());
    // The same slot again (a restart that read an old next slot): refused, and the job is left as it is.
    expect(store.cron.claimRun("a", 1060, "catch-up", 1200)).toBeNull();
    expect(store.cron.runningRuns().map((r) => [r.jobId, r.slot, r.trigger])).toEqual([["a", 1060, "schedule"]]);
    store.cron.finishRun(run!, { status: "ok", finishedAt: 1070, sessionId: "s1", output: "all good" });
    store.cron.setDelivery(run!, "sent");
    expect(store.cron.lastRun("a")).toMatchObject({ status: "ok", finishedAt: 1070, sessionId: "s1", output: "all good", delivery: "sent", error: null });
    expect(store.cron.runningRuns()).toEqual([]);
  });

  it("lists due jobs soonest first, skipping paused and finished ones", () => {
    const store = memory();
    store.cron.insertJob(job("late", { nextRunAt: 2000 }));
    store.cron.insertJob(job("soon", { nextRunAt: 1500 }));
    store.cron.insertJob(job("paused", { nextRunAt: 1000, paused: true }));
    store.cron.insertJob(job("done", { nextRunAt: null }));
    expect(store.cron.dueJobs(1999).map((j) => j.id)).toEqual(["soon"]);
    expect(store.cron.dueJobs(2000).map((j) => j.id)).toEqual(["soon", "late"]);
    expect(store.cron.nextDue()).toBe(1500);
    store.cron.updateJob("paused", { paused: false }, 1100);
    expect(store.cron.nextDue()).toBe(1000);
  });

  it("updates the given fields only (null clears one), and deleting a job removes its runs", () => {
    const store = memory();
    store.cron.insertJob(job("a", { model: "big-model" }));
    store.cron.claimRun("a", 1060, "schedule", 1061);
    expect(store.cron.updateJob("a", { name: "renamed", model: null, paused: true }, 1100)).toBe(true);
    expect(store.cron.getJob("a")).toMatchObject({ name: "renamed", model: null, paused: true, prompt: "check the disks", updatedAt: 1100 });
    expect(store.cron.updateJob("nope", { name: "x" }, 1100)).toBe(false);
    expect(store.cron.deleteJob("a")).toBe(true);
    expect(store.cron.getJob("a")).toBeNull();
    expect(store.cron.recentRuns("a")).toEqual([]);
    expect(store.cron.deleteJob("a")).toBe(false);
  });
});

describe("gateway marks", () => {
  it("keeps a JSON value under a name until deleted", () => {
    const store = memory();
    expect(store.marks.get("restart")).toBeUndefined();
    store.marks.set("restart", { chat: { platform: "telegram", chatId: "1" } });
    store.marks.set("restart", { chat: { platform: "telegram", chatId: "2" } });
    expect(store.marks.get("restart")).toEqual({ chat: { platform: "telegram", chatId: "2" } });
    expect(store.marks.delete("restart")).toBe(true);
    expect(store.marks.delete("restart")).toBe(false);
  });
});
