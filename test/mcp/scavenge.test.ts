/**
 * Building the MCP layer turns V8's parallel young-generation collection off
 * for the process (gateway/wiring/mcp.ts says why). Each case runs in a child
 * process, since the setting is process-wide and one-way: the child builds the
 * MCP layer from a real config (one server, not started), then allocates
 * under `--trace-gc-nvp`, whose scavenge lines report the time V8's helper
 * threads spent on the collection (`background.scavenge.parallel`).
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const pexec = promisify(execFile);

/** Helper-thread time (ms) of every scavenge the child ran, after building the MCP layer with `servers` configured. */
async function helperTimes(servers: string): Promise<number[]> {
  const script = `
    import { setFlagsFromString } from "node:v8";
    import pino from "pino";
    import { buildConfig } from "./config/index.js";
    import { ToolRegistry } from "./agent/index.js";
    import { buildMcp } from "./gateway/wiring/mcp.js";
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
  `;
  const { stdout, stderr } = await pexec(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  expect(stderr).toContain(`built: ${servers !== ""}`);
  const times = [...stdout.matchAll(/gc=s .*?background\.scavenge\.parallel=([\d.]+)/g)].map((m) => Number(m[1]));
  expect(times.length).toBeGreaterThan(5);
  return times;
}

describe("young-generation collection with MCP configured", () => {
  it("runs on the collecting thread alone: V8's helper threads take no part", async () => {
    const servers = `mcp_servers:\n  s:\n    command: ${JSON.stringify(process.execPath)}\n    args: ["-e", ""]\n`;
    const times = await helperTimes(servers);
    expect(times.every((t) => t === 0)).toBe(true);
  }, 60_000);

  it("keeps V8's default (helper threads share the work) when no MCP server is configured", async () => {
    const times = await helperTimes("");
    expect(times.some((t) => t > 0)).toBe(true);
  }, 60_000);
});
