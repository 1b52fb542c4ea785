/**
 * Background commands end to end: terminal(background=true) and the process
 * tool (list, poll, log, wait, kill), the completion notification, session
 * isolation, and registry shutdown leaving no process behind.
 */
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "./approval-helpers.js";
import { alive, groupMembers, makeRig, pgidOf, pidsFrom, type Rig } from "./terminal-helpers.js";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function setup(): Promise<Rig> {
  rig = await makeRig();
  return rig;
}

async function start(t: Rig, command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await t.run({ command, background: true, ...extra });
  expect(r).toMatchObject({ status: "started" });
  return String(r.id);
}

describe("process tool", () => {
  it("lists, polls new output, waits for the exit code", async () => {
    const t = await setup();
    const id = await start(t, "echo first; sleep 0.5; echo second; exit 4");
    expect(id).toMatch(/^proc_[0-9a-f]{12}$/);
    const listed = await t.proc({ action: "list" });
    expect(listed.processes).toEqual([expect.objectContaining({ id, status: "running" })]);
    let seen = "";
    for (let i = 0; i < 500 && !seen.includes("first"); i++) {
      seen += String((await t.proc({ action: "poll", id })).new_output);
      if (!seen.includes("first")) await delay(10);
    }
    expect(seen).toBe("first\n");
    const waited = await t.proc({ action: "wait", id, timeout: 10 });
    expect(waited).toMatchObject({ id, status: "exited", exit_code: 4, finished: true });
    expect(String(waited.output_tail)).toContain("second");
    const rest = await t.proc({ action: "poll", id });
    expect(seen + String(rest.new_output)).toBe("first\nsecond\n");
    expect((await t.proc({ action: "poll", id })).new_output).toBe("");
  });

  it("reads the log by offset and limit", async () => {
    const t = await setup();
    const id = await start(t, "for i in $(seq 1 50); do echo line$i; done");
    await t.proc({ action: "wait", id, timeout: 10 });
    const first = await t.proc({ action: "log", id, offset: 0, limit: 12 });
    expect(first).toMatchObject({ text: "line1\nline2\n", offset: 0, next_offset: 12 });
    const second = await t.proc({ action: "log", id, offset: 12, limit: 6 });
    expect(second.text).toBe("line3\n");
    expect(Number(first.total_chars)).toBeGreaterThan(300);
  });

  it("waits with a timeout and returns early when interrupted", async () => {
    const t = await setup();
    const id = await start(t, "sleep 30");
    const timed = await t.proc({ action: "wait", id, timeout: 1 });
    expect(timed).toMatchObject({ finished: false, status: "running" });
    const controller = new AbortController();
    const started = Date.now();
    const pending = t.proc({ action: "wait", id, timeout: 60 }, controller.signal);
    setTimeout(() => controller.abort(), 100);
    expect(await pending).toMatchObject({ finished: false, note: "interrupted while waiting" });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("kills a process and everything it started", async () => {
    const t = await setup();
    const id = await start(t, "sleep 100 & echo $! > child.pid; sleep 100");
    const [child] = await pidsFrom(join(t.dir, "child.pid"), 1);
    const pgid = pgidOf(child as number);
    const killed = await t.proc({ action: "kill", id });
    expect(killed).toMatchObject({ id, status: "killed" });
    await until(() => !alive(child as number));
    expect(groupMembers(pgid)).toEqual([]);
  });

  it("notifies the session when a process started with notify_on_complete finishes", async () => {
    const t = await setup();
    const id = await start(t, "echo built ok; echo token sk-proj-abcdefghijklmnop1234567890", { notify_on_complete: true });
    await t.proc({ action: "wait", id, timeout: 10 });
    await until(() => t.notices.length > 0);
    expect(t.notices[0]).toBe(`[Background process ${id} finished with exit code 0~ Here's the final output:\nbuilt ok\ntoken sk-proj-***]`);
  });

  it("does not notify without notify_on_complete", async () => {
    const t = await setup();
    const id = await start(t, "true");
    await t.proc({ action: "wait", id, timeout: 10 });
    expect(t.notices).toEqual([]);
  });

  it("keeps sessions apart", async () => {
    const t = await setup();
    const id = await start(t, "sleep 5");
    const other = await t.proc({ action: "poll", id }, undefined, "discord:channel:9");
    expect(String(other.error)).toContain("No background process");
    expect((await t.proc({ action: "list" }, undefined, "discord:channel:9")).processes).toEqual([]);
  });

  it("answers unknown ids and missing ids with errors the model can read", async () => {
    const t = await setup();
    expect(String((await t.proc({ action: "kill", id: "proc_000000000000" })).error)).toContain("No background process");
    expect((await t.proc({ action: "poll" })).error).toBe("action poll needs an id");
  });
});

describe("process registry shutdown", () => {
  it("kills every process it started, grandchildren included, and refuses new ones", async () => {
    const t = await setup();
    await start(t, "sleep 100 & echo $! >> pids; echo $$ >> pids; wait");
    await start(t, "bash -c 'trap \"\" TERM; sleep 100 & echo $! >> pids; wait'");
    const pids = await pidsFrom(join(t.dir, "pids"), 3);
    const groups = [...new Set(pids.map(pgidOf))];
    await t.registry.shutdown();
    await until(() => pids.every((p) => !alive(p)), 3_000);
    for (const g of groups) expect(groupMembers(g)).toEqual([]);
    const refused = await t.run({ command: "echo late", background: true });
    expect(refused).toMatchObject({ status: "error" });
    expect(String(refused.error)).toContain("shut down");
  });
});
