/**
 * The daemon benchmark's load driver runs itself again in a Linux session of
 * its own at a lower group niceness (bench/driver-session.ts). A small script
 * stands in for the bench: it calls driverSession() and, where it is to run
 * the bench, reports its pid, session and autogroup and exits with code 7,
 * which the first process must hand on.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCgroupParent } from "../../test/fakes/daemon-cgroup.js";
import { autogroupsEnabled } from "../../tools/common/autogroup.js";

const SESSION = fileURLToPath(new URL("../driver-session.ts", import.meta.url));
const AUTOGROUP = fileURLToPath(new URL("../../tools/common/autogroup.ts", import.meta.url));

interface Ran {
  readonly code: number | null;
  readonly pid: number;
  readonly sid: number;
  readonly group: string;
  readonly note: string;
  readonly outerPid: number;
  /** The bench's niceness and cpu cgroup path, and those of a daemon it starts. */
  readonly nice: number;
  readonly cgroup: string | null;
  readonly daemonNice: number;
  readonly daemonCgroup: string | null;
}

let dir = "";
let script = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "hermes-driver-session-"));
  script = join(dir, "bench.mjs");
  await writeFile(
    script,
    `
    import { readFileSync } from "node:fs";
    const { daemonCommand, driverSession } = await import(${JSON.stringify(SESSION)});
    const { cpuCgroup: parseCpuCgroup } = await import(${JSON.stringify(AUTOGROUP)});
    const outerPid = Number(process.env.OUTER_PID ?? process.pid);
    process.env.OUTER_PID = String(outerPid);
    const { execFileSync } = await import("node:child_process");
    const { getPriority } = await import("node:os");
    const s = await driverSession(Number(process.argv[2]));
    if (s.kind === "exited") {
      process.exitCode = s.code;
    } else {
      // /proc/self/stat: the session id is the 6th field, counted after the command's closing parenthesis.
      const stat = readFileSync("/proc/self/stat", "utf8");
      const sid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
      const group = readFileSync("/proc/self/autogroup", "utf8").trim();
      const cpuCgroup = (text) => parseCpuCgroup(text)?.path ?? null;
      // A daemon started the way the bench starts one: its niceness and cpu cgroup.
      const [command, ...prefix] = daemonCommand();
      const daemon = JSON.parse(execFileSync(command, [...prefix, "-e", "console.log(JSON.stringify({ nice: require('node:os').getPriority(), cgroup: require('node:fs').readFileSync('/proc/self/cgroup', 'utf8') }))"]).toString());
      process.stdout.write(JSON.stringify({ pid: process.pid, sid, group, note: s.note, outerPid, nice: getPriority(), cgroup: cpuCgroup(readFileSync("/proc/self/cgroup", "utf8")), daemonNice: daemon.nice, daemonCgroup: cpuCgroup(daemon.cgroup) }));
      process.exitCode = 7;
    }
    `,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(nice: number, cgroupMode: "shared" | "off"): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, BENCH_DAEMON_CGROUP: cgroupMode };
    execFile(process.execPath, ["--import", "tsx", script, String(nice)], { timeout: 20_000, env }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? null) : 0;
      if (!stdout.startsWith("{")) return reject(new Error(`no report (code ${code}): ${stderr}`));
      resolve({ code, ...(JSON.parse(stdout) as Omit<Ran, "code">) });
    });
  });
}

describe.runIf(autogroupsEnabled())("driverSession (Linux autogroups)", () => {
  it("runs the bench again as a session leader at the given group niceness and hands on its exit code", async () => {
    const ownGroup = readFileSync("/proc/self/autogroup", "utf8");
    const r = await run(5, "off");
    expect(r.code).toBe(7);
    expect(r.pid).not.toBe(r.outerPid); // a second process ran the bench…
    expect(r.sid).toBe(r.pid); // …leading a session of its own…
    expect(r.group).toMatch(/nice 5$/); // …whose group has the niceness asked for
    expect(r.note).toContain("group niceness 5");
    expect(readFileSync("/proc/self/autogroup", "utf8")).toBe(ownGroup); // the caller's group is untouched
  });

  it("leaves the bench where it was started with --driver-nice=0", async () => {
    const r = await run(0, "off");
    expect(r.code).toBe(7);
    expect(r.pid).toBe(r.outerPid);
    expect(r.sid).not.toBe(r.pid);
    expect(r.note).toContain("--driver-nice=0");
  });
});

const cgroupParent = findCgroupParent();
describe.runIf(cgroupParent.kind === "on")("driverSession in a shared cgroup (root, a cpu cgroup controller)", () => {
  it("runs the bench again at the given niceness in a new cpu cgroup, starts daemons there at niceness 0, and removes the group after", async () => {
    const r = await run(5, "shared");
    expect(r.code).toBe(7);
    expect(r.pid).not.toBe(r.outerPid);
    expect(r.nice).toBe(5);
    expect(r.cgroup).toMatch(/\/hermes-bench-\d+-\d+-shared$/);
    expect(r.note).toContain(`cpu cgroup ${cgroupParent.kind === "on" ? cgroupParent.dir : ""}`);
    expect(r.note).toContain("niceness 5");
    expect(r.daemonNice).toBe(0);
    expect(r.daemonCgroup).toBe(r.cgroup);
    const dir = join(cgroupParent.kind === "on" ? cgroupParent.dir : "", (r.cgroup ?? "").split("/").pop() ?? "");
    expect(existsSync(dir)).toBe(false);
  });

  it("at --driver-nice=0 as well: a new group, nobody niced", async () => {
    const r = await run(0, "shared");
    expect(r.code).toBe(7);
    expect(r.pid).not.toBe(r.outerPid);
    expect(r.cgroup).toMatch(/-shared$/);
    expect([r.nice, r.daemonNice]).toEqual([0, 0]);
    expect(r.daemonCgroup).toBe(r.cgroup);
  });
});
