/**
 * The MCP section of the daemon benchmark: the same 50-chat load through the
 * fake Bot API on a daemon without MCP, then on one with TEN MCP servers
 * configured — five working (four normal, one that ignores SIGTERM), three
 * hanging on initialize (5 s connect timeout), one crashing a second after
 * every start, one flooding stderr — started from source with
 * `node --import tsx`, from the moment the daemon is ready, so the load
 * overlaps the servers' boot, the hanging ones' timeouts and the crash loop.
 */
import { fileURLToPath } from "node:url";
import type { Cleanup } from "./daemon-harness.js";
import { log, readyDaemon, runLevel, stopChecked, type Level } from "./daemon-sections.js";
import { startWorld, UNLIMITED } from "./daemon-world.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));

type FakeName = "normal" | "stubborn" | "hang" | "crash" | "flood";

function fake(name: FakeName, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const file = fileURLToPath(new URL(`../test/fakes/mcp/${name}-server.ts`, import.meta.url));
  return { command: process.execPath, args: ["--import", "tsx", file], cwd: REPO, ...extra };
}

export function tenServers(): Record<string, unknown> {
  return {
    normal1: fake("normal"),
    normal2: fake("normal"),
    normal3: fake("normal"),
    normal4: fake("normal"),
    stubborn: fake("stubborn"),
    hang1: fake("hang", { connect_timeout_s: 5 }),
    hang2: fake("hang", { connect_timeout_s: 5 }),
    hang3: fake("hang", { connect_timeout_s: 5 }),
    crash: fake("crash", { env: { FAKE_CRASH_AFTER_MS: "1000" } }),
    flood: fake("flood"),
  };
}

export interface McpRun {
  readonly level: Level;
  /** /readyz states of the MCP servers at the end of the load, e.g. { ready: 5, failed: 4, connecting: 1 }. */
  readonly states: Readonly<Record<string, number>>;
  readonly tools: number;
  readonly leftovers: readonly string[];
}

export interface McpFigures {
  /** Runs without MCP before and after the MCP run, so machine noise shows as their spread. */
  readonly without: readonly McpRun[];
  readonly with: McpRun;
}

export interface McpOptions {
  readonly pollTimeoutS: number;
  readonly thinkMs: readonly [number, number];
  readonly durationMs: number;
}

export async function mcpSection(o: McpOptions, cleanup: Cleanup): Promise<McpFigures> {
  const before = await oneRun("no-mcp", o, undefined, cleanup);
  const withMcp = await oneRun("mcp", o, tenServers(), cleanup);
  const after = await oneRun("no-mcp-again", o, undefined, cleanup);
  return { without: [before, after], with: withMcp };
}

async function oneRun(label: string, o: McpOptions, servers: Record<string, unknown> | undefined, cleanup: Cleanup): Promise<McpRun> {
  const w = await startWorld(cleanup, { users: 50, flood: false });
  const d = await readyDaemon(label, w, { pollTimeoutS: o.pollTimeoutS, rateLimits: UNLIMITED, ...(servers ? { mcpServers: servers } : {}) }, cleanup);
  // The first turn after start pays for lazy imports; keep it out of both runs alike.
  await runLevel(d, w, "warm-up (not reported)", { chats: 1, thinkMs: null, turns: 3 });
  const name = servers ? "10 MCP servers" : label === "no-mcp" ? "no MCP, before" : "no MCP, after";
  const level = await runLevel(d, w, `50 chats, ${name}`, { chats: 50, thinkMs: o.thinkMs, durationMs: o.durationMs });
  const states = await mcpStates(d.url);
  const tools = toolCount(w.llm.requests.at(-1)?.body);
  const leftovers = await stopChecked(d, label);
  log(`${label}: MCP states ${JSON.stringify(states)}, ${tools} tools offered to the model`);
  return { level, states, tools, leftovers };
}

async function mcpStates(url: string): Promise<Record<string, number>> {
  const body = (await (await fetch(`${url}/readyz`)).json()) as { checks?: Array<{ name: string; detail?: string }> };
  const out: Record<string, number> = {};
  for (const c of body.checks ?? []) {
    if (!c.name.startsWith("mcp:")) continue;
    const state = (c.detail ?? "?").split(":")[0] ?? "?";
    out[state] = (out[state] ?? 0) + 1;
  }
  return out;
}

function toolCount(body: unknown): number {
  const tools = (body as { tools?: unknown[] } | undefined)?.tools;
  return Array.isArray(tools) ? tools.length : 0;
}
