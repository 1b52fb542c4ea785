/**
 * The scheduler over the real store and runtime (test adapter as Telegram,
 * scripted runner), on a fake clock: runs per slot delivered to the home
 * channel, no overlap, the missed-run policy across a restart, crashes,
 * timeouts, "run now", one-shot and silent jobs.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ConfigInput } from "../../config/index.js";
import { CRON_TEXT, CronJobs, CronScheduler } from "../../gateway/cron/index.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { type Harness, makeHarness } from "../runtime/helpers/harness.js";
import { aborted, completed, inputText, type Script, ScriptedRunner } from "../runtime/helpers/scripted-runner.js";

const START = Date.parse("2026-03-02T10:00:00Z");
const MIN = 60_000;

interface Rig {
  readonly h: Harness;
  readonly raw: Store;
  readonly clock: FakeClock;
  readonly jobs: CronJobs;
  readonly sched: CronScheduler;
  readonly runner: ScriptedRunner;
}

const rigs: Rig[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) await closeRig(r);
  for (const s of stores.splice(0)) s.close();
});

async function closeRig(r: Rig): Promise<void> {
  await r.sched.stop(100);
  await r.h.close();
  rigs.splice(rigs.indexOf(r), 1);
}

async function rig(o: { script?: Script; raw?: Store; clock?: FakeClock; config?: ConfigInput; start?: boolean } = {}): Promise<Rig> {
  const clock = o.clock ?? new FakeClock({ start: START });
  const raw = o.raw ?? openStore(":memory:");
  if (!o.raw) stores.push(raw);
  const runner = new ScriptedRunner(o.script ?? (async (req) => completed(req, `did: ${inputText(req)}`)));
  const config = { gateway: { platforms: { telegram: { home_channel: "ops" } } }, ...o.config };
  const h = await makeHarness({ raw, clock, runner, platform: "telegram", config });
  let sched: CronScheduler | undefined;
  const jobs = new CronJobs({
    store: raw.cron,
    config: h.config,
    clock,
    checkTarget: (t, origin) => h.runtime.scheduled.checkTarget(t, origin),
    onChange: () => sched?.wake(),
  });
  sched = new CronScheduler({
    store: raw.cron,
    jobs,
    config: h.config,
    clock,
    logger: h.config && (await import("pino")).pino({ level: "silent" }),
    work: () => h.runtime.scheduled,
  });
  if (o.start !== false) sched.start();
  const r = { h, raw, clock, jobs, sched, runner };
  rigs.push(r);
  return r;
}

const runsOf = (r: Rig, id: string) => [...r.raw.cron.recentRuns(id, 50)].reverse();

describe("the scheduler", () => {
  it("runs an interval job at each slot, as a cron turn of its own, and delivers to the home channel", async () => {
    const r = await rig();
    const job = r.jobs.create({ name: "disk check", prompt: "check the disks", schedule: "every 1m", deliver: "telegram" }, null, "cli");
    expect(job.nextRun).toBe(new Date(START + MIN).toISOString());
    await r.clock.advance(MIN);
    await r.h.adapter.waitForText(CRON_TEXT.output("disk check", "did: check the disks"), "ops");
    await r.clock.advance(MIN);
    await vi.waitFor(() =>
      expect(runsOf(r, job.id).map((x) => [x.trigger, x.status, x.delivery])).toEqual([
        ["schedule", "ok", "sent"],
        ["schedule", "ok", "sent"],
      ]),
    );
    expect(runsOf(r, job.id).map((x) => x.slot)).toEqual([START + MIN, START + 2 * MIN]);
    const call = r.runner.calls[0]!;
    expect(call.platform).toBe("cron");
    expect(call.toolsets).toEqual(["hermes-cron"]);
    expect(call.sessionKey).toMatch(new RegExp(`^cron:${job.id}:\\d+$`));
    expect(call.systemPrompt).toContain("You are running as a scheduled cron job.");
    expect(call.tools.platform).toBe("cron");
    expect(r.runner.calls[1]!.sessionId).not.toBe(call.sessionId);
    expect(r.h.store.getSession(call.sessionId)).toMatchObject({ source: "cron", endedAt: expect.any(Number), messageCount: 2 });
  });

  it("never runs a job twice at once: a slot that comes during a run is recorded as skipped", async () => {
    let release!: () => void;
    const gate = new Promise<void>((res) => (release = res));
    const r = await rig({ script: async (req) => (await gate, completed(req, "slow done")) });
    const job = r.jobs.create({ prompt: "slow", schedule: "every 1m", deliver: "local" }, null, null);
    await r.clock.advance(MIN);
    await vi.waitFor(() => expect(r.runner.calls).toHaveLength(1));
    await r.clock.advance(MIN);
    await vi.waitFor(() => expect(runsOf(r, job.id).map((x) => x.status)).toEqual(["running", "skipped"]));
    expect(runsOf(r, job.id)[1]?.error).toBe(CRON_TEXT.overlap);
    release();
    await vi.waitFor(() =>
      expect(runsOf(r, job.id).map((x) => [x.status, x.delivery])).toEqual([
        ["ok", "local"],
        ["skipped", null],
      ]),
    );
    expect(r.runner.calls).toHaveLength(1);
    expect(r.sched.port.running()).toEqual([]);
  });

  it("after downtime runs a job once (run_once), then goes on from its next slot; a run cut off by the stop is not run again", async () => {
    const raw = openStore(":memory:");
    stores.push(raw);
    const clock = new FakeClock({ start: START });
    const first = await rig({ raw, clock });
    const job = first.jobs.create({ prompt: "tick", schedule: "every 1m", deliver: "telegram" }, null, null);
    await clock.advance(MIN);
    await first.h.adapter.waitForText("did: tick", "ops");
    await closeRig(first);
    await clock.advance(4.5 * MIN); // down across four slots
    const second = await rig({ raw, clock });
    await vi.waitFor(() =>
      expect(runsOf(second, job.id).map((x) => [x.trigger, x.status])).toEqual([
        ["schedule", "ok"],
        ["catch-up", "ok"],
      ]),
    );
    expect(second.h.adapter.texts("ops")).toEqual([CRON_TEXT.output(job.name, "did: tick")]);
    expect(raw.cron.getJob(job.id)?.nextRunAt).toBe(START + 6 * MIN);
    await clock.advance(0.5 * MIN);
    await vi.waitFor(() => expect(runsOf(second, job.id)).toHaveLength(3));
    expect(runsOf(second, job.id).map((x) => x.slot)).toEqual([START + MIN, START + 2 * MIN, START + 6 * MIN]);
    void first;
  });

  it("after downtime records the missed slot as skipped (skip), and runs nothing until the next slot", async () => {
    const raw = openStore(":memory:");
    stores.push(raw);
    const clock = new FakeClock({ start: START });
    const first = await rig({ raw, clock, start: false });
    const job = first.jobs.create({ prompt: "tick", schedule: "every 1m", deliver: "telegram" }, null, null);
    await closeRig(first);
    await clock.advance(3.5 * MIN);
    const second = await rig({ raw, clock, config: { cron: { missed_runs: "skip" } } });
    await vi.waitFor(() => expect(runsOf(second, job.id).map((x) => [x.status, x.error])).toEqual([["skipped", CRON_TEXT.missed]]));
    expect(second.runner.calls).toEqual([]);
    await clock.advance(0.5 * MIN);
    await vi.waitFor(() => expect(runsOf(second, job.id).map((x) => x.status)).toEqual(["skipped", "ok"]));
  });

  it("records a run a crash left running as interrupted, and does not run its slot again", async () => {
    const raw = openStore(":memory:");
    stores.push(raw);
    const clock = new FakeClock({ start: START });
    const setup = await rig({ raw, clock, start: false });
    const job = setup.jobs.create({ prompt: "tick", schedule: "every 1m", deliver: "local" }, null, null);
    raw.cron.claimRun(job.id, START + MIN, "schedule", START + MIN, START + 2 * MIN); // as if a process died mid-run
    await closeRig(setup);
    await clock.advance(MIN + 10_000);
    const r = await rig({ raw, clock });
    expect(runsOf(r, job.id).map((x) => [x.status, x.error])).toEqual([["interrupted", CRON_TEXT.interrupted]]);
    await clock.advance(MIN);
    await vi.waitFor(() => expect(runsOf(r, job.id).map((x) => x.status)).toEqual(["interrupted", "ok"]));
    expect(r.runner.calls).toHaveLength(1);
  });

  it("stops a run at its timeout and says so where the output would go", async () => {
    const r = await rig({ script: (req, signal) => new Promise((res) => signal.addEventListener("abort", () => res(aborted(req)), { once: true })) });
    const job = r.jobs.create({ name: "stuck", prompt: "hang", schedule: "every 10m", deliver: "telegram", timeoutS: 30 }, null, null);
    await r.clock.advance(10 * MIN);
    await vi.waitFor(() => expect(r.runner.calls).toHaveLength(1));
    await r.clock.advance(30_000);
    await r.h.adapter.waitForText(CRON_TEXT.timedOut("stuck", 30), "ops");
    expect(runsOf(r, job.id)).toMatchObject([{ status: "timeout", delivery: "sent" }]);
  });

  it("runs now when asked, without moving the schedule; keeps a silent answer to itself; a one-shot job runs once", async () => {
    const r = await rig({ script: async (req) => completed(req, inputText(req) === "quiet" ? "[SILENT]" : "spoke") });
    const hourly = r.jobs.create({ prompt: "quiet", schedule: "0 * * * *", deliver: "telegram" }, null, null);
    const next = r.raw.cron.getJob(hourly.id)?.nextRunAt;
    r.jobs.runNow(hourly.id);
    await vi.waitFor(() => expect(runsOf(r, hourly.id).map((x) => [x.trigger, x.status, x.delivery])).toEqual([["manual", "ok", "silent"]]));
    expect(r.raw.cron.getJob(hourly.id)).toMatchObject({ nextRunAt: next, runRequestedAt: null });
    const once = r.jobs.create({ prompt: "say it", schedule: "5m", deliver: "telegram" }, null, null);
    await r.clock.advance(5 * MIN);
    await vi.waitFor(() => expect(runsOf(r, once.id).map((x) => x.status)).toEqual(["ok"]));
    expect(r.jobs.list().find((j) => j.id === once.id)).toMatchObject({ nextRun: null, lastRun: { status: "ok", delivery: "sent" } });
    expect(r.h.adapter.texts("ops")).toEqual([CRON_TEXT.output(once.name, "spoke")]);
  });

  it("delivers to the chat a job was made in, and refuses a target the configuration does not allow", async () => {
    const r = await rig({ config: { gateway: { platforms: { telegram: { home_channel: "ops", allowed_users: ["alice"] } } } } });
    const origin = { platform: "telegram", chatId: "alice", chatType: "dm" as const };
    const control = r.sched.port.control(origin, "alice");
    expect(() => control.create({ prompt: "x", schedule: "every 1h", deliver: "telegram:mallory" })).toThrow(/not one the configuration allows/);
    expect(() => control.create({ prompt: "x", schedule: "every 1h", deliver: "telegarm" })).toThrow(/not valid/);
    const job = control.create({ prompt: "remind me", schedule: "2m" });
    expect(job.deliver).toBe("origin");
    await r.clock.advance(2 * MIN);
    await r.h.adapter.waitForText("did: remind me", "alice");
    expect(r.runner.calls[0]?.tools.messenger?.targets()[0]).toEqual({ target: "origin", description: "this chat" });
    control.pause(job.id);
    expect(control.list()[0]).toMatchObject({ paused: true, nextRun: null });
    control.remove(job.id);
    expect(control.list()).toEqual([]);
  });
});
