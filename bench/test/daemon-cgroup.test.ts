/**
 * The daemon benchmark's cpu cgroups: where one can be made (from
 * /proc/self/cgroup and the mounts), and, where this test runs as root on
 * Linux with a cpu controller, a real group that a process is moved into and
 * that is removed once the process is gone.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { findCgroupParent, makeDaemonCgroup, requestedCgroupMode } from "../../test/fakes/daemon-cgroup.js";

const files =
  (map: Record<string, string>) =>
  (path: string): string | null =>
    map[path] ?? null;
const linux = process.platform === "linux";

describe.runIf(linux)("findCgroupParent", () => {
  it("cgroup v1: a group under the cpu hierarchy's mount, at this process's own place in it", () => {
    const read = files({ "/proc/self/cgroup": "4:memory:/x\n2:cpu,cpuacct:/user.slice\n1:name=systemd:/\n", "/sys/fs/cgroup/cpu,cpuacct/cgroup.procs": "" });
    expect(findCgroupParent(read, true)).toEqual({ kind: "on", dir: "/sys/fs/cgroup/cpu,cpuacct/user.slice", version: 1 });
    const plain = files({ "/proc/self/cgroup": "1:cpu:/\n0::/\n", "/sys/fs/cgroup/cpu/cgroup.procs": "" });
    expect(findCgroupParent(plain, true)).toEqual({ kind: "on", dir: "/sys/fs/cgroup/cpu", version: 1 });
  });

  it("cgroup v2: only from the root cgroup, and only with the cpu controller", () => {
    const root = files({ "/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory pids\n" });
    expect(findCgroupParent(root, true)).toEqual({ kind: "on", dir: "/sys/fs/cgroup", version: 2 });
    const nested = files({ "/proc/self/cgroup": "0::/user.slice/session-1.scope\n", "/sys/fs/cgroup/cgroup.controllers": "cpu" });
    expect(findCgroupParent(nested, true)).toMatchObject({ kind: "off", why: expect.stringMatching(/no-internal-processes/) });
    const noCpu = files({ "/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/cgroup.controllers": "memory pids" });
    expect(findCgroupParent(noCpu, true)).toEqual({ kind: "off", why: "cgroup v2 without the cpu controller" });
  });

  it("nothing without root, or where the v1 cpu hierarchy is not mounted", () => {
    const read = files({ "/proc/self/cgroup": "1:cpu:/\n", "/sys/fs/cgroup/cpu/cgroup.procs": "" });
    expect(findCgroupParent(read, false)).toEqual({ kind: "off", why: "not root" });
    expect(findCgroupParent(files({ "/proc/self/cgroup": "1:cpu:/\n" }), true)).toMatchObject({ kind: "off" });
  });
});

describe("BENCH_DAEMON_CGROUP", () => {
  it("is shared when unset, takes shared, own and off, and rejects anything else by name", () => {
    expect(requestedCgroupMode({})).toBe("shared");
    expect(requestedCgroupMode({ BENCH_DAEMON_CGROUP: "" })).toBe("shared");
    for (const mode of ["shared", "own", "off"] as const) expect(requestedCgroupMode({ BENCH_DAEMON_CGROUP: mode })).toBe(mode);
    expect(() => requestedCgroupMode({ BENCH_DAEMON_CGROUP: "on" })).toThrow("BENCH_DAEMON_CGROUP: on is none of shared, own, off");
  });
});

const parent = linux ? findCgroupParent() : null;

describe.runIf(parent?.kind === "on")("a daemon's cgroup, for real", () => {
  it("takes a process and what it starts, and is removed once they are gone", async () => {
    const group = makeDaemonCgroup(parent ?? { kind: "off", why: "" }, "test: a/b");
    expect(group).not.toBeNull();
    if (!group) return;
    expect(group.path).toMatch(/hermes-bench-\d+-\d+-test__a_b$/);
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      group.add(child.pid as number);
      const lines = readFileSync(`/proc/${child.pid}/cgroup`, "utf8").split("\n");
      const cpu = lines.find((l) => (l.split(":")[1] ?? "").split(",").includes("cpu")) ?? lines.find((l) => l.startsWith("0::"));
      expect(cpu?.endsWith(`/${basename(group.path)}`)).toBe(true);
    } finally {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
    await group.remove();
    expect(existsSync(group.path)).toBe(false);
  });
});
