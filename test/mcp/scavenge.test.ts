/**
 * Building the MCP layer turns V8's parallel young-generation collection off
 * for the process where Linux schedules it by autogroup, and leaves it on in a
 * cpu cgroup of its own (gateway/wiring/mcp.ts says why). Each case runs in a
 * child process, since the setting is process-wide and one-way: the child
 * (moved into a cgroup first, for that case) builds the MCP layer from a real
 * config (one server, not started), then allocates under `--trace-gc-nvp`,
 * whose scavenge lines report the time V8's helper threads spent on the
 * collection (`background.scavenge.parallel`).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scheduledByAutogroup } from "../../tools/common/autogroup.js";
import { type DaemonCgroup, findCgroupParent, makeDaemonCgroup } from "../fakes/daemon-cgroup.js";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const SERVERS = `mcp_servers:\n  s:\n    command: ${JSON.stringify(process.execPath)}\n    args: ["-e", ""]\n`;

/**
 * Helper-thread time (ms) of every scavenge the child ran, after building the
 * MCP layer with `servers` configured; `cgroup` takes the child before it
 * builds anything (it waits for a line on stdin).
 */
async function helperTimes(servers: string, cgroup: DaemonCgroup | null = null): Promise<number[]> {
  const script = `
    import { setFlagsFromString } from "node:v8";
    import { once } from "node:events";
    import pino from "pino";
    import { buildConfig } from "./config/index.js";
    import { ToolRegistry } from "./agent/index.js";
    import { buildMcp } from "./gateway/wiring/mcp.js";
    await once(process.stdin, "data");
    const config = buildConfig({ yamlText: ${JSON.stringify(`model:\n  provider: custom\n  model: m\n  base_url: http://127.0.0.1:9/v1\n${servers}`)}, file: null, env: {}, home: process.cwd() });
    const mcp = await buildMcp(config, new ToolRegistry(), pino({ level: "silent" }));
    process.stderr.write("built: " + (mcp !== null) + "\\n");
    setFlagsFromString("--trace-gc-nvp");
    // Survivors across many scavenges, so a parallel collection has work to share.
    const keep = [];
    let batch = [];
    for (let i = 0; i < 3e6; i++) {
      batch.push({ i, s: "x" + i });
      if (batch.length === 200_000) { keep.push(batch.slice(0, 2_000)); batch = []; }
    }
    setFlagsFromString("--no-trace-gc-nvp");
    process.exit(0);
  `;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  cgroup?.add(child.pid as number);
  child.stdin.end("go\n");
  const [code] = (await once(child, "exit")) as [number | null];
  expect(code, stderr).toBe(0);
  expect(stderr).toContain(`built: ${servers !== ""}`);
  const times = [...stdout.matchAll(/gc=s .*?background\.scavenge\.parallel=([\d.]+)/g)].map((m) => Number(m[1]));
  expect(times.length).toBeGreaterThan(5);
  return times;
}

const cgroupParent = process.platform === "linux" ? findCgroupParent() : null;

describe("young-generation collection with MCP configured", () => {
  it.runIf(scheduledByAutogroup())(
    "where Linux schedules by autogroup, runs on the collecting thread alone: V8's helper threads take no part",
    async () => {
      const times = await helperTimes(SERVERS);
      expect(times.every((t) => t === 0)).toBe(true);
    },
    60_000,
  );

  it.runIf(cgroupParent?.kind === "on")(
    "in a cpu cgroup of its own (as under systemd or Docker), keeps V8's default: helper threads share the work",
    async () => {
      const cgroup = makeDaemonCgroup(cgroupParent ?? { kind: "off", why: "" }, "scavenge-test");
      try {
        const times = await helperTimes(SERVERS, cgroup);
        expect(times.some((t) => t > 0)).toBe(true);
      } finally {
        await cgroup?.remove();
      }
    },
    60_000,
  );

  it("keeps V8's default (helper threads share the work) when no MCP server is configured", async () => {
    const times = await helperTimes("");
    expect(times.some((t) => t > 0)).toBe(true);
  }, 60_000);
});
