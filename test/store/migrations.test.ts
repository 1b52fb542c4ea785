import { afterEach, describe, expect, it } from "vitest";
import { HermesError } from "../../config/errors.js";
import { openDatabase, openStore, readSchemaVersion, SCHEMA_VERSION } from "../../gateway/store/index.js";
import { seedLegacy, tempDir } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});
function temp() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t;
}

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return err instanceof HermesError ? err.code : `not a HermesError: ${String(err)}`;
  }
  return undefined;
};

describe("migrations", () => {
  it("creates the current schema from empty, in memory and on disk", () => {
    for (const path of [":memory:", temp().file]) {
      const sdb = openDatabase(path);
      expect(readSchemaVersion(sdb.db)).toBe(SCHEMA_VERSION);
      const tables = sdb.db.prepare(`SELECT name FROM sqlite_master WHERE type IN ('table', 'view')`).pluck().all();
      expect(tables).toEqual(
        expect.arrayContaining([
          "sessions",
          "messages",
          "messages_fts",
          "messages_fts_trigram",
          "schema_version",
          "inbound_events",
          "outbound_messages",
          "approval_decisions",
          "pairing_requests",
          "paired_users",
          "pairing_failures",
          "session_routes",
          "home_channels",
          "messages_fts_source",
          "fts_state",
        ]),
      );
      sdb.close();
    }
  });

  it("uses WAL with foreign keys on for files", () => {
    const sdb = openDatabase(temp().file);
    expect(sdb.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(sdb.db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(sdb.db.pragma("synchronous", { simple: true })).toBe(1);
    sdb.close();
  });

  for (let v = 1; v < SCHEMA_VERSION; v++) {
    it(`upgrades a version ${v} database, keeping its data and indexing it for search`, () => {
      const { file } = temp();
      const old = openDatabase(file, { migrateUpTo: v });
      expect(readSchemaVersion(old.db)).toBe(v);
      const seed = seedLegacy(old.db, v);
      old.close();

      const store = openStore(file);
      try {
        const s = store.sessions.get(seed.sessionId);
        expect(s).toMatchObject({
          source: "telegram",
          userId: "u1",
          systemPrompt: "sys",
          messageCount: 3,
          toolCallCount: 1,
          inputTokens: 10,
          outputTokens: 20,
        });
        if (v >= 3) expect(s?.title).toBe(`Legacy title ${v}`);
        if (v >= 5) expect(s).toMatchObject({ cacheReadTokens: 5, estimatedCostUsd: 0.25, billingProvider: "openrouter" });
        if (v >= 9) expect(s?.apiCallCount).toBe(2);

        const conv = store.messages.loadConversation(seed.sessionId);
        expect(conv.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
        expect(conv[1]).toMatchObject({ role: "assistant", content: null, tool_calls: [{ function: { name: "web_search" } }] });
        if (v >= 2) expect(conv[1]).toMatchObject({ finish_reason: "tool_calls" });
        if (v >= 6) expect(conv[1]).toMatchObject({ reasoning: "I should look this up" });
        expect(conv[2]).toMatchObject({ role: "tool", tool_name: "read_file", tool_call_id: "call_abc123" });

        const ids = (q: string) => store.search.messages({ query: q }).map((h) => h.messageId);
        expect(ids("legacy")).toEqual([seed.messageIds[0]]);
        expect(ids("read_file")).toEqual([seed.messageIds[2]]); // tool name
        expect(ids("kubernetes")).toEqual([seed.messageIds[1]]); // tool-call argument
        expect(ids("你好世界")).toEqual([seed.messageIds[0]]); // trigram (CJK)
        expect(ids("username")).toEqual([seed.messageIds[0]]); // trigram (substring)
        expect(store.search.pending()).toBe(0);
        store.search.verify();

        // The upgraded store takes new rows and finds them.
        const id = store.messages.append(seed.sessionId, { role: "user", content: "after the upgrade" });
        expect(ids("upgrade")).toEqual([id]);
        expect(id).toBeGreaterThan(Math.max(...seed.messageIds));
      } finally {
        store.close();
      }
      // Opening again is a no-op.
      const again = openStore(file);
      expect(again.sessions.get(seed.sessionId)?.messageCount).toBe(4);
      again.close();
    });
  }

  it("keeps messages whose session was deleted, under a placeholder session", () => {
    const { file } = temp();
    const old = openDatabase(file, { migrateUpTo: 11 });
    old.db.pragma("foreign_keys = OFF");
    old.db.prepare(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('gone', 'user', 'orphaned words', 5)`).run();
    old.close();
    const store = openStore(file);
    // Its column's 5 s, in the API's epoch ms.
    expect(store.sessions.get("gone")).toMatchObject({ source: "unknown", startedAt: 5000, messageCount: 1 });
    expect(store.search.messages({ query: "orphaned" }).map((h) => h.sessionId)).toEqual(["gone"]);
    store.close();
  });

  it("refuses a database written by a newer version", () => {
    const { file } = temp();
    const sdb = openDatabase(file);
    sdb.db.prepare(`UPDATE schema_version SET version = ?`).run(SCHEMA_VERSION + 1);
    sdb.close();
    expect(codeOf(() => openStore(file))).toBe("HGW_ERR_STORE_NEWER_SCHEMA");
  });

  it("leaves the database at its previous version when a migration fails", () => {
    const { file } = temp();
    const old = openDatabase(file, { migrateUpTo: 11 });
    seedLegacy(old.db, 11);
    old.db.exec(`CREATE TABLE inbound_events (x INTEGER)`); // v12 will collide with it
    old.close();
    expect(codeOf(() => openStore(file))).toBe("HGW_ERR_STORE_MIGRATION");
    const after = openDatabase(file, { migrateUpTo: 11 });
    expect(readSchemaVersion(after.db)).toBe(11);
    expect(after.db.prepare(`SELECT count(*) FROM messages`).pluck().get()).toBe(3);
    expect(after.db.prepare(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'legacy'`).pluck().get()).toBe(1);
    after.close();
  });

  it("reports a file that is not a database as HGW_ERR_STORE_OPEN", async () => {
    const { file } = temp();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(file, "this is not sqlite".repeat(100));
    expect(codeOf(() => openStore(file))).toBe("HGW_ERR_STORE_OPEN");
  });
});
