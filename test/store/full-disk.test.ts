/**
 * Out of space, with real SQLite: the database is capped at its current size
 * (`PRAGMA max_page_count` on the store's own connection), so a write that
 * needs a new page fails with SQLITE_FULL exactly as on a full disk; raising
 * the cap is space returning.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HermesError } from "../../config/errors.js";
import { openDatabase, type Store, type StoreDb, storeOver } from "../../gateway/store/index.js";
import { tempDir } from "./helpers.js";

let dir: ReturnType<typeof tempDir>;
let sdb: StoreDb;
let store: Store;
beforeEach(() => {
  dir = tempDir();
  sdb = openDatabase(dir.file, { checkpointOffThread: false });
  store = storeOver(sdb);
});
afterEach(() => {
  store.close();
  dir.cleanup();
});

const pages = (name: string) => sdb.db.pragma(name, { simple: true }) as number;
const fillTheDisk = () => sdb.db.pragma(`max_page_count = ${pages("page_count")}`);
const freeSpace = () => sdb.db.pragma(`max_page_count = ${pages("page_count") + 10_000}`);
const big = (tag: string) => ({ role: "user" as const, content: `${tag} ${"x".repeat(200_000)}` });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("a full disk", () => {
  it("fails a write with HGW_ERR_STORE_FULL, rolled back whole, and leaves what was committed intact", () => {
    const id = store.sessions.create({ source: "telegram", userId: "1" });
    store.messages.appendMany(id, [
      { role: "user", content: "before the disk filled" },
      { role: "assistant", content: "noted" },
    ]);
    fillTheDisk();
    const err = thrown(() =>
      store.transaction(() => {
        store.messages.append(id, { role: "user", content: "small, fits" });
        store.messages.append(id, big("too big"));
      }),
    );
    expect(err).toBeInstanceOf(HermesError);
    expect(err).toMatchObject({ code: "HGW_ERR_STORE_FULL", cause: { code: "SQLITE_FULL" } });
    expect(store.messages.loadConversation(id).map((m) => m.content)).toEqual(["before the disk filled", "noted"]);
    expect(store.sessions.get(id)?.messageCount).toBe(2);
    expect(() => store.inbound.record("telegram", "e1", null, big("payload"))).toThrow(expect.objectContaining({ code: "HGW_ERR_STORE_FULL" }));
  });

  it("reports the store not writable, with the reason, until space returns, then writes go on", () => {
    const id = store.sessions.create({ source: "api" });
    expect(store.health()).toEqual({ writable: true });
    fillTheDisk();
    expect(() => store.messages.append(id, big("one"))).toThrow(/HGW_ERR_STORE_FULL|disk holding the session store is full/);
    const health = store.health();
    expect(health.writable).toBe(false);
    expect(health.detail).toMatch(/out of space since .*database or disk is full/);
    // A write small enough for a page with room left commits, but the store stays not writable: the next big one would fail.
    store.messages.append(id, { role: "user", content: "tiny" });
    expect(store.health().writable).toBe(false);

    freeSpace();
    expect(store.health()).toEqual({ writable: true });
    store.messages.append(id, big("after"));
    expect(store.messages.loadConversation(id).map((m) => String(m.content).slice(0, 5))).toEqual(["tiny", "after"]);
  });

  it("still searches (what is indexed) and closes cleanly while full", () => {
    const id = store.sessions.create({ source: "api" });
    store.messages.append(id, { role: "user", content: "kubernetes ingress question" });
    store.search.flush();
    store.messages.append(id, { role: "user", content: `kubernetes again ${"y".repeat(100_000)}` });
    fillTheDisk();
    // Indexing the newest message needs pages that are not there: the search answers from the index as it is.
    expect(store.search.messages({ query: "kubernetes" }).length).toBeGreaterThanOrEqual(1);
    expect(() => store.close()).not.toThrow();
  });
});
