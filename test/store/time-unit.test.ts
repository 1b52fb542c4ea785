/**
 * One unit of time across the store's API: every time it takes and returns is
 * epoch ms, while its columns keep Hermes Agent's epoch seconds (REAL). Read
 * through the raw connection beside the API, so a store that passed either
 * unit through unchanged would fail here.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Store, type StoreDb, storeOver } from "../../gateway/store/index.js";

const T = 1_700_000_000_123; // epoch ms, with a millisecond part
const NOW = 1_700_000_500_500;

let sdb: StoreDb;
let store: Store;
beforeEach(() => {
  sdb = openDatabase(":memory:", { now: () => NOW });
  store = storeOver(sdb);
});
afterEach(() => store.close());

const column = (sql: string, ...params: unknown[]) =>
  sdb.db
    .prepare(sql)
    .pluck()
    .get(...params) as number;

describe("the store's unit of time", () => {
  it("takes and returns epoch ms, and writes epoch seconds", () => {
    const id = store.sessions.create({ source: "telegram", startedAt: T });
    expect(column(`SELECT started_at FROM sessions WHERE id = ?`, id)).toBeCloseTo(T / 1000, 6);
    expect(store.sessions.get(id)?.startedAt).toBe(T);
    store.sessions.end(id, "user", T + 5_000);
    expect(store.sessions.get(id)?.endedAt).toBe(T + 5_000);
    store.messages.append(id, { role: "user", content: "hello there" });
    expect(store.messages.list(id)[0]?.timestamp).toBe(NOW); // the store's clock, in ms
    expect(column(`SELECT timestamp FROM messages WHERE session_id = ?`, id)).toBeCloseTo(NOW / 1000, 6);
  });

  it("reads seconds another writer left as ms", () => {
    sdb.db.prepare(`INSERT INTO sessions (id, source, started_at) VALUES ('old', 'cli', 1600000000.25)`).run();
    expect(store.sessions.get("old")?.startedAt).toBe(1_600_000_000_250);
  });

  it("filters in ms: search bounds, recent chats, pruning, pairing windows", () => {
    const id = store.sessions.create({ source: "telegram" });
    store.messages.append(id, { role: "user", content: "early words" }, { timestamp: T });
    store.messages.append(id, { role: "user", content: "later words" }, { timestamp: T + 60_000 });
    const times = (q: { since?: number; until?: number }) => store.search.messages({ query: "words", ...q }).map((h) => h.timestamp);
    expect(times({ since: T + 1 })).toEqual([T + 60_000]);
    expect(times({ until: T + 59_999 })).toEqual([T]);

    const event = store.inbound.record("discord", "e1", null, { chat: { chatId: "c1", chatType: "group" } }, T);
    store.inbound.mark(event.id, "done");
    expect(store.inbound.recentChats("discord", T - 1)).toEqual([{ chatId: "c1", chatType: "group" }]);
    expect(store.inbound.recentChats("discord", T + 1)).toEqual([]);
    expect(store.inbound.prune(T + 1)).toBe(1);

    store.pairing.insertRequest({ platform: "telegram", userId: "9", codeHash: "h", salt: "s", createdAt: T, expiresAt: T + 60_000 });
    expect(store.pairing.countActiveRequests("telegram", T + 59_999)).toBe(1);
    expect(store.pairing.countActiveRequests("telegram", T + 60_000)).toBe(0);
    expect(store.pairing.listRequests("telegram")[0]).toMatchObject({ createdAt: T, expiresAt: T + 60_000 });
    store.pairing.setLockout("telegram", 3, T + 900_000);
    expect(store.pairing.getLockout("telegram")).toEqual({ failures: 3, lockedUntil: T + 900_000 });
  });

  it("keeps a cron slot in ms, claimed once", () => {
    store.cron.insertJob({
      id: "j",
      name: "j",
      prompt: "p",
      schedule: "every 1m",
      timezone: null,
      deliver: "local",
      origin: null,
      model: null,
      timeoutS: null,
      createdBy: null,
      createdAt: T,
      nextRunAt: T + 60_000,
    });
    expect(store.cron.dueJobs(T + 59_999)).toEqual([]);
    expect(store.cron.nextDue()).toBe(T + 60_000);
    const run = store.cron.claimRun("j", T + 60_000, "schedule", T + 60_001, T + 120_000);
    expect(run).not.toBeNull();
    expect(store.cron.claimRun("j", T + 60_000, "schedule", T + 60_002)).toBeNull();
    expect(store.cron.lastRun("j")).toMatchObject({ slot: T + 60_000, startedAt: T + 60_001 });
    expect(column(`SELECT slot FROM cron_runs WHERE id = ?`, run)).toBeCloseTo((T + 60_000) / 1000, 6);
  });
});
