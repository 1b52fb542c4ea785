/**
 * Scheduling-group niceness (tools/common/autogroup.ts) and who sets it:
 * the launcher, for its own group and for each server's as it starts it;
 * and whether autogroups apply at all (only in the root cpu cgroup).
 *
 * The kernel lets a process without CAP_SYS_ADMIN change an autogroup's
 * niceness only once per 100 ms, system-wide. An unprivileged gateway that
 * starts several servers at once must retry, or most of them keep the
 * gateway's weight. That part runs as user "nobody", so it needs root
 * (to switch users) and a kernel with autogroups.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { autogroupNice, autogroupsEnabled, inRootCpuCgroup, serverGroupNice } from "../../tools/common/autogroup.js";
import { processAlive } from "../../tools/common/process-alive.js";
import { Launcher } from "../../tools/mcp/launcher-client.js";
import { descendants, fakePath, waitFor } from "./helpers.js";

const autogroups = existsSync("/proc/self/autogroup") && autogroupsEnabled();
const root = process.getuid?.() === 0;
const NOBODY = 65534;

// The launchers end their servers; the probes kill their sleeps.
afterEach(async () => expect(await descendants()).toEqual([]));

describe("inRootCpuCgroup (autogroups apply only there)", () => {
  const none = () => false;
  it("cgroup v1: the path of the hierarchy with the cpu controller", () => {
    expect(inRootCpuCgroup("4:memory:/docker/abc\n2:cpu,cpuacct:/\n0::/\n", none)).toBe(true);
    expect(inRootCpuCgroup("2:cpu,cpuacct:/system.slice/hermes.service\n", none)).toBe(false);
    expect(inRootCpuCgroup("1:cpu:/hermes-bench-1\n0::/\n", none)).toBe(false);
  });

  it("cgroup v2: in a non-root cpu group when its cgroup or an ancestor has the cpu controller's files", () => {
    const has =
      (...paths: string[]) =>
      (p: string) =>
        paths.includes(p);
    expect(inRootCpuCgroup("0::/\n", none)).toBe(true);
    expect(inRootCpuCgroup("0::/user.slice/user-1000.slice/session-2.scope\n", none)).toBe(true);
    expect(inRootCpuCgroup("0::/user.slice/user-1000.slice/session-2.scope\n", has("user.slice/cpu.weight"))).toBe(false);
    expect(inRootCpuCgroup("0::/system.slice/docker-1.scope\n", has("system.slice/docker-1.scope/cpu.weight"))).toBe(false);
  });

  it("no cgroups at all: the root group", () => {
    expect(inRootCpuCgroup("", none)).toBe(true);
  });

  it("a server's group niceness is set only where autogroups schedule the gateway", () => {
    expect(
      serverGroupNice(
        5,
        () => 3,
        () => true,
      ),
    ).toBe(8);
    expect(
      serverGroupNice(
        30,
        () => 3,
        () => true,
      ),
    ).toBe(19);
    expect(
      serverGroupNice(
        5,
        () => 3,
        () => false,
      ),
    ).toBeNull();
    expect(
      serverGroupNice(
        5,
        () => null,
        () => true,
      ),
    ).toBeNull();
  });
});

/** The niceness of `pid`'s scheduling group (NaN if it has none: the root group). */
const groupNiceOf = (pid: number): number => autogroupNice(readFileSync(`/proc/${pid}/autogroup`, "utf8"), Number.NaN);

/** Runs `body` (an ES module's text, which may import the module under test) as user nobody; returns its stdout. */
async function runAsNobody(body: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "hgw-autogroup-"));
  try {
    await chmod(dir, 0o755);
    const file = join(dir, "probe.mts");
    await writeFile(file, body);
    await chmod(file, 0o644);
    const child = spawn(process.execPath, ["--import", "tsx", file], {
      uid: NOBODY,
      gid: NOBODY,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", HOME: dir },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    if (code !== 0) throw new Error(`the probe failed (${code}): ${err}`);
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe.runIf(autogroups && root)("autogroup niceness without CAP_SYS_ADMIN", () => {
  const module = fileURLToPath(new URL("../../tools/common/autogroup.ts", import.meta.url));
  /** Starts four sessions (sleep, setsid) as nobody, renices them all at once with `attempts` tries each, reports outcome and niceness. */
  const probe = (attempts: number): string => `
    import { spawn } from "node:child_process";
    import { readFileSync } from "node:fs";
    import { setAutogroupNice } from ${JSON.stringify(module)};
    const kids = Array.from({ length: 4 }, () => spawn("sleep", ["30"], { detached: true, stdio: "ignore" }));
    const outcomes = await Promise.all(kids.map((k) => setAutogroupNice(k.pid, 7, { everyMs: 110, attempts: ${attempts} })));
    const nice = kids.map((k) => Number(/nice\\s+(-?\\d+)/.exec(readFileSync("/proc/" + k.pid + "/autogroup", "utf8"))[1]));
    for (const k of kids) process.kill(-k.pid, "SIGKILL");
    console.log(JSON.stringify({ outcomes, nice }));
  `;

  it("is rate-limited by the kernel: of four changes made back to back, most are refused", async () => {
    const { outcomes, nice } = JSON.parse(await runAsNobody(probe(1))) as { outcomes: (string | null)[]; nice: number[] };
    // Back to back, at most one gets through; a probe descheduled for 100 ms between two writes may see two.
    const refused = outcomes.filter((o) => o !== null);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    for (const o of refused) expect(o).toMatch(/EAGAIN/);
    expect(nice.filter((n) => n === 7).length).toBe(outcomes.length - refused.length);
  });

  it("retries a rate-limited change until every group has its niceness", async () => {
    const { outcomes, nice } = JSON.parse(await runAsNobody(probe(28))) as { outcomes: (string | null)[]; nice: number[] };
    expect(outcomes).toEqual([null, null, null, null]);
    expect(nice).toEqual([7, 7, 7, 7]);
  });
});

describe.runIf(autogroups)("the launcher sets scheduling-group niceness", () => {
  const script = fileURLToPath(new URL("../../tools/mcp/launcher.ts", import.meta.url));

  it("of its own group at start and of each server's group as it starts it; a failure is a note, not an error", async () => {
    // The gateway's base, read as the pool reads it: a process in the root group (started by an init that never
    // called setsid, as some CI runners do) has no group niceness of its own, so its nice counts.
    const own = autogroupNice(readFileSync("/proc/self/autogroup", "utf8"), getPriority());
    const notes: string[] = [];
    const deaths: string[] = [];
    const good = new Launcher(
      { execArgv: ["--import", "tsx"], script },
      { groupNice: Math.min(19, own + 3), idle: false, onNote: (n) => notes.push(n), onDeath: (w) => deaths.push(w) },
    );
    const bad = new Launcher(
      { execArgv: ["--import", "tsx"], script },
      { groupNice: 40, idle: false, onNote: (n) => notes.push(n), onDeath: (w) => deaths.push(w) },
    );
    const env = { PATH: process.env.PATH ?? "" };
    const args = [fakePath("normal")];
    try {
      const server = await good.spawn({ command: process.execPath, args, env, groupNice: Math.min(19, own + 4) });
      expect(groupNiceOf(server.pid)).toBe(Math.min(19, own + 4));
      expect(groupNiceOf(good.pid as number)).toBe(Math.min(19, own + 3));
      expect(notes).toEqual([]);

      // 40 is out of range: the kernel refuses, the launcher says so for its own group and the server's, and the server runs.
      const refused = await bad.spawn({ command: process.execPath, args, env, groupNice: 40 });
      await waitFor(() => notes.length === 2, 10_000, "a note for each refused change");
      expect(notes.some((n) => /the MCP launcher: .*EINVAL/.test(n))).toBe(true);
      expect(notes.some((n) => n.includes(`MCP server ${refused.pid}`) && /EINVAL/.test(n))).toBe(true);
      expect(processAlive(refused.pid)).toBe(true);
    } finally {
      for (const l of [good, bad]) await l.end();
    }
    expect(deaths).toEqual([]);
    for (const l of [good, bad]) if (l.pid !== null) expect(processAlive(l.pid)).toBe(false);
  });
});
