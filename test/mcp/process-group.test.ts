/**
 * Servers started through a launcher are trees of processes. Each stdio
 * server leads a session and process group of its own, signals go to the
 * group, and what a server leaves behind is swept when it exits: a helper
 * the server started never outlives it, whether the server is shut down, is
 * killed by the close escalation, or crashes. Under Linux autogroups the
 * server's group runs `mcp.nice` nicer than the gateway's.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { autogroupNice, scheduledByAutogroup } from "../../tools/common/autogroup.js";
import { processAlive } from "../../tools/common/process-alive.js";
import { descendants, fakeServer, serverConfig, TestManagers, waitFor } from "./helpers.js";

const managers = new TestManagers();
const build = managers.build.bind(managers);
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "hgw-mcp-group-"));
});

afterEach(async () => {
  await managers.shutDown();
  expect(await descendants()).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

/**
 * A launcher-style server: a shell that starts a long-lived helper (its pid
 * written to `pidFile`), then runs the fake server as its child — not with
 * exec, so the shell stays the server process the gateway knows.
 */
function launched(fake: "normal" | "crash", pidFile: string) {
  const real = fakeServer(fake);
  const quoted = [real.command ?? "", ...real.args].map((a) => `'${a}'`).join(" ");
  return serverConfig({ command: "/bin/sh", args: ["-c", `sleep 300 & echo $! > '${pidFile}'; ${quoted}; status=$?; exit $status`] });
}

/** Fields of /proc/<pid>/stat after the command name: [state, ppid, pgrp, session, …]. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

async function helperPid(pidFile: string): Promise<number> {
  await waitFor(() => existsSync(pidFile), 10_000, "the helper's pid file");
  return Number((await readFile(pidFile, "utf8")).trim());
}

describe.runIf(process.platform === "linux")("MCP server process groups", () => {
  it("start every server as the leader of its own session and process group", async () => {
    const { manager, status } = build({ lead: fakeServer("normal") });
    manager.start();
    await manager.whenDiscovered();
    const pid = status("lead")?.pid as number;
    const [, , pgrp, session] = statFields(pid);
    expect(Number(pgrp)).toBe(pid);
    expect(Number(session)).toBe(pid);
    expect(Number(statFields(process.pid)[3])).not.toBe(pid);
  });

  it("take a helper the server started down with it at shutdown", async () => {
    const pidFile = join(dir, "helper.pid");
    const { sink, manager, status } = build({ wrapped: launched("normal", pidFile) });
    manager.start();
    await manager.whenDiscovered();
    expect(await sink.run("mcp__wrapped__add", { a: 1, b: 1 })).toEqual({ success: true, result: "2" });
    const helper = await helperPid(pidFile);
    expect(Number(statFields(helper)[2])).toBe(status("wrapped")?.pid);
    await manager.shutdown();
    await waitFor(() => !processAlive(helper), 2_000, "the helper to be gone");
  });

  it("sweep the helpers of a server that crashed, before its retry", async () => {
    const pidFile = join(dir, "helper.pid");
    const { sink, manager, status } = build({ crashy: launched("crash", pidFile) }, { retry_initial_s: 60, retry_max_s: 60 });
    manager.start();
    await manager.whenDiscovered();
    const helper = await helperPid(pidFile);
    await sink.run("mcp__crashy__crash");
    await waitFor(() => status("crashy")?.state === "failed" && status("crashy")?.pid === null, 10_000, "the crashed server closed");
    await waitFor(() => !processAlive(helper), 5_000, "the orphaned helper to be killed");
  });

  it.runIf(scheduledByAutogroup())("run the server's scheduling group mcp.nice nicer than the gateway's", async () => {
    // Empty in the root group (a process started by init, as CI may be): then the gateway's own nice counts.
    const own = autogroupNice(readFileSync("/proc/self/autogroup", "utf8"), getPriority());
    const { manager, status } = build({ prio: fakeServer("normal") }, { nice: 5 });
    manager.start();
    await manager.whenDiscovered();
    const pid = status("prio")?.pid as number;
    const group = readFileSync(`/proc/${pid}/autogroup`, "utf8");
    expect(group).not.toBe(readFileSync("/proc/self/autogroup", "utf8"));
    expect(autogroupNice(group, Number.NaN)).toBe(Math.min(19, own + 5));
  });
});
