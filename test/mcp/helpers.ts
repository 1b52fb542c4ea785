/**
 * Shared pieces of the MCP tests: fake server configs, a recording tool sink,
 * a capturing logger (from test/log-capture.ts), a process-tree walk, a
 * process's parent, and polling.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { ToolContext, ToolDefinition } from "../../agent/types.js";
import { type Config, ConfigSchema, type McpServerConfig } from "../../config/schema.js";
import { parseProcStat } from "../../tools/common/proc-stat.js";
import { McpManager, type McpServerStatus, type McpToolSink } from "../../tools/mcp/index.js";
import { type FakeName, fakePath } from "../fakes/mcp-fakes.js";
import { captureLogger, type LogLine } from "../log-capture.js";
import { type NotYet, until } from "../wait.js";

export { type FakeName, fakePath } from "../fakes/mcp-fakes.js";

/** A fully defaulted server config, as the config loader would produce it. */
export function serverConfig(input: Record<string, unknown>): McpServerConfig {
  const parsed = ConfigSchema.parse({ mcp_servers: { s: input } });
  return parsed.mcp_servers["s"] as McpServerConfig;
}

/** A stdio config that runs one of the fakes, bundled. */
export function fakeServer(name: FakeName, extra: Record<string, unknown> = {}): McpServerConfig {
  return serverConfig({ command: process.execPath, args: [fakePath(name)], ...extra });
}

/**
 * `mcp` settings with test-friendly retries (fast), no niceness change and no SCHED_IDLE: with both cores busy
 * running other test files, a SCHED_IDLE server gets almost no CPU, and these tests time its replies and crashes.
 * The scheduling itself is tested with `sched_idle: true` (sched-idle.test.ts) and through the daemon's defaults.
 */
export function mcpSettings(overrides: Record<string, unknown> = {}): Config["mcp"] {
  return ConfigSchema.parse({
    mcp: { retry_initial_s: 0.3, retry_max_s: 1, max_retries: 3, startup_concurrency: 4, nice: 0, sched_idle: false, discovery_timeout_s: 30, ...overrides },
  }).mcp;
}

export class RecordingSink implements McpToolSink {
  readonly tools = new Map<string, ToolDefinition>();
  readonly events: string[] = [];

  register(def: ToolDefinition): void {
    this.tools.set(def.name, def);
    this.events.push(`+${def.name}`);
  }

  deregister(name: string): void {
    this.tools.delete(name);
    this.events.push(`-${name}`);
  }

  /** Runs a registered tool and parses its JSON result. */
  async run(name: string, args: Record<string, unknown> = {}, signal: AbortSignal = new AbortController().signal): Promise<Record<string, unknown>> {
    const def = this.tools.get(name);
    if (!def) throw new Error(`tool ${name} is not registered (have: ${[...this.tools.keys()].join(", ")})`);
    // MCP tools never read the context; the agent supplies a real one.
    return JSON.parse(await def.execute(args, {} as ToolContext, signal)) as Record<string, unknown>;
  }
}

export { captureLogger, type LogLine };

const pexec = promisify(execFile);

/** Every descendant process of `root` (children, grandchildren, …), zombies included. */
export async function descendants(root: number = process.pid): Promise<Array<{ pid: number; stat: string; cmd: string }>> {
  const { stdout } = await pexec("ps", ["-e", "-o", "pid=,ppid=,stat=,args="]);
  const rows = stdout
    .split("\n")
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), stat: m[3] as string, cmd: m[4] as string }));
  const out: Array<{ pid: number; stat: string; cmd: string }> = [];
  const walk = (pid: number) => {
    for (const r of rows.filter((x) => x.ppid === pid && x.cmd.indexOf(" -e -o pid=") < 0)) {
      out.push({ pid: r.pid, stat: r.stat, cmd: r.cmd });
      walk(r.pid);
    }
  };
  walk(root);
  return out;
}

/**
 * Writes `dir`/gateway.mts, a stand-in gateway for `node --import tsx`: its
 * code `body` runs with `Launcher` (launcher-client.ts) and `launcherCommand`
 * (the launcher run from source) in scope. Returns the file's path.
 */
export async function writeStandInGateway(dir: string, body: string): Promise<string> {
  const client = fileURLToPath(new URL("../../tools/mcp/launcher-client.ts", import.meta.url));
  const script = fileURLToPath(new URL("../../tools/mcp/launcher.ts", import.meta.url));
  const file = join(dir, "gateway.mts");
  await writeFile(
    file,
    `import { Launcher } from ${JSON.stringify(client)};\nconst launcherCommand = { execArgv: ["--import", "tsx"], script: ${JSON.stringify(script)} };\n${body}`,
  );
  return file;
}

/** This process's threads (Linux): id → name, from /proc/self/task. */
export function ownThreads(): Map<number, string> {
  const out = new Map<number, string>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      out.set(Number(tid), readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err; // the thread ended meanwhile
    }
  }
  return out;
}

/** The parent pid, from /proc/<pid>/stat (the field after the parenthesised command). */
export function parentOf(pid: number): number {
  return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8")).field(4);
}

/** What `probe` returns once truthy (vi.waitFor, every 25 ms); fails naming `what` after `timeoutMs`. */
export function waitFor<T>(probe: () => T | NotYet, timeoutMs: number, what: string): Promise<T> {
  return until(probe, what, timeoutMs, 25);
}

/** Managers built for tests, each with its own sink and captured log; shutDown() in afterEach stops them all. */
export class TestManagers {
  private readonly managers: McpManager[] = [];

  build(servers: ConstructorParameters<typeof McpManager>[0]["servers"], settings: Record<string, unknown> = {}) {
    const sink = new RecordingSink();
    const { log, lines } = captureLogger();
    const manager = new McpManager({ servers, settings: mcpSettings(settings), sink, log });
    this.managers.push(manager);
    const status = (name: string): McpServerStatus | undefined => manager.status().find((s) => s.name === name);
    return { sink, lines, manager, status };
  }

  async shutDown(): Promise<void> {
    await Promise.all(this.managers.splice(0).map((m) => m.shutdown()));
  }
}
