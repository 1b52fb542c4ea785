/**
 * Shared fixtures for the store tests: temp directories, a fake clock, and
 * rows written straight into an OLD schema (the store's API only speaks the
 * current one), the way an earlier version would have left them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import type { Message } from "../../agent/types.js";

export function tempDir(): { dir: string; file: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "hgw-store-test-"));
  return { dir, file: join(dir, "state.db"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A clock (epoch ms) that advances one second per read, starting at `startS` (epoch seconds); `peek` reads it without advancing. */
export function steppingClock(startS = 1_700_000_000): { now: () => number; peek: () => number } {
  let t = startS;
  return { now: () => (t += 1) * 1000, peek: () => t * 1000 };
}

export const TOOL_CALL_MESSAGE: Message = {
  role: "assistant",
  content: null,
  tool_calls: [{ id: "call_abc123", type: "function", function: { name: "web_search", arguments: JSON.stringify({ query: "kubernetes ingress" }) } }],
  reasoning: "I should look this up",
  finish_reason: "tool_calls",
};

export interface LegacySeed {
  readonly sessionId: string;
  readonly messageIds: number[];
}

/**
 * Inserts one session with a user message (Latin + CJK), an assistant tool
 * call and a tool result, using only the columns schema version `v` has.
 */
export function seedLegacy(db: Database.Database, v: number): LegacySeed {
  const sessionId = `legacy-${v}`;
  const cols: Record<string, unknown> = {
    id: sessionId,
    source: "telegram",
    user_id: "u1",
    model: "m",
    system_prompt: "sys",
    started_at: 1_600_000_000,
    message_count: 3,
    tool_call_count: 1,
    input_tokens: 10,
    output_tokens: 20,
  };
  if (v >= 3) cols["title"] = `Legacy title ${v}`;
  if (v >= 5) Object.assign(cols, { cache_read_tokens: 5, estimated_cost_usd: 0.25, billing_provider: "openrouter" });
  if (v >= 9) cols["api_call_count"] = 2;
  insert(db, "sessions", cols);
  const rows: Array<Record<string, unknown>> = [
    { role: "user", content: "hello legacy world 你好世界 please check getUserName", timestamp: 1_600_000_001 },
    {
      role: "assistant",
      content: null,
      tool_calls: TOOL_CALL_MESSAGE.role === "assistant" ? JSON.stringify(TOOL_CALL_MESSAGE.tool_calls) : null,
      timestamp: 1_600_000_002,
    },
    { role: "tool", content: '{"result": "ingress rules found"}', tool_call_id: "call_abc123", tool_name: "read_file", timestamp: 1_600_000_003 },
  ];
  if (v >= 2) rows[1] = { ...rows[1], finish_reason: "tool_calls" };
  if (v >= 6) rows[1] = { ...rows[1], reasoning: "I should look this up" };
  const messageIds = rows.map((r) => insert(db, "messages", { session_id: sessionId, ...r }));
  return { sessionId, messageIds };
}

function insert(db: Database.Database, table: string, cols: Record<string, unknown>): number {
  const keys = Object.keys(cols);
  const sql = `INSERT INTO ${table} (${keys.join(", ")}) VALUES (${keys.map((k) => `@${k}`).join(", ")})`;
  return Number(db.prepare(sql).run(cols).lastInsertRowid);
}
