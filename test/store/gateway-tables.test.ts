import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../gateway/store/index.js";
import { steppingClock, tempDir } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});
function memoryStore(): Store {
  const store = openStore(":memory:", { now: steppingClock().now });
  cleanups.push(() => store.close());
  return store;
}

describe("inbound events", () => {
  it("deduplicates on (platform, event id)", () => {
    const store = memoryStore();
    const first = store.inbound.record("telegram", "update-1", "tg:1", { text: "hi" });
    expect(first).toEqual({ inserted: true, id: expect.any(Number) });
    expect(store.inbound.record("telegram", "update-1", "tg:1", { text: "hi again" })).toEqual({ inserted: false, id: first.id });
    expect(store.inbound.record("discord", "update-1", "dc:1", "{}").inserted).toBe(true);
    expect(store.inbound.get(first.id)).toMatchObject({
      platform: "telegram",
      eventId: "update-1",
      sessionKey: "tg:1",
      payload: '{"text":"hi"}',
      status: "pending",
      attempts: 0,
    });
    expect(() => store.inbound.record("telegram", "bad", null, "not json")).toThrow();
  });

  it("names the chats of a platform that had events taken up since a time, most recent first", () => {
    const store = memoryStore();
    const chat = (chatId: string, chatType: string, threadId?: string) => ({
      chat: { platform: "discord", chatId, chatType, ...(threadId ? { threadId } : {}) },
    });
    store.inbound.record("discord", "1", "k", chat("dm1", "dm"), 100);
    store.inbound.record("discord", "2", "k", chat("c1", "thread", "t1"), 300);
    store.inbound.record("discord", "3", "k", chat("dm1", "dm"), 400);
    store.inbound.record("discord", "4", "k", chat("old", "dm"), 50);
    store.inbound.mark(store.inbound.record("discord", "5", "k", chat("chatter", "group"), 500).id, "ignored");
    store.inbound.record("telegram", "6", "k", chat("tg", "dm"), 500);
    expect(store.inbound.recentChats("discord", 100)).toEqual([
      { chatId: "dm1", chatType: "dm" },
      { chatId: "c1", chatType: "thread", threadId: "t1" },
    ]);
  });

  it("replays unfinished events after a restart, oldest first", () => {
    const { file, cleanup } = tempDir();
    cleanups.push(cleanup);
    let store = openStore(file);
    const a = store.inbound.record("telegram", "1", "k", {}).id;
    const b = store.inbound.record("telegram", "2", "k", {}).id;
    const c = store.inbound.record("telegram", "3", "k", {}).id;
    store.inbound.mark(a, "processing");
    store.inbound.mark(b, "done");
    store.close();
    store = openStore(file);
    cleanups.push(() => store.close());
    expect(store.inbound.unfinished().map((r) => [r.id, r.status, r.attempts])).toEqual([
      [a, "processing", 1],
      [c, "pending", 0],
    ]);
    expect(store.inbound.get(b)).toMatchObject({ status: "done", finishedAt: expect.any(Number) });
  });

  it("blames the previous run's death on what it was processing, in equal shares per turn (one per session key)", () => {
    const store = memoryStore();
    const a1 = store.inbound.record("telegram", "a1", "ann", {}).id;
    const a2 = store.inbound.record("telegram", "a2", "ann", {}).id;
    const b1 = store.inbound.record("telegram", "b1", "bob", {}).id;
    const waiting = store.inbound.record("telegram", "c1", "cat", {}).id;
    // Another process's platform (the chat CLI beside the daemon): not this run's to recover.
    const other = store.inbound.record("cli", "x1", "cli-user", {}).id;
    store.inbound.mark(other, "processing");
    expect(store.inbound.recoverCrashed(["telegram"])).toEqual({ events: 0, turns: 0 });
    for (const id of [a1, a2, b1]) store.inbound.mark(id, "processing");
    expect(store.inbound.recoverCrashed(["telegram"])).toEqual({ events: 3, turns: 2 });
    expect([a1, a2, b1, waiting].map((id) => store.inbound.get(id))).toMatchObject([
      { status: "pending", crashes: 1, crashBlame: 0.5, startedAt: null },
      { status: "pending", crashes: 1, crashBlame: 0.5 },
      { status: "pending", crashes: 1, crashBlame: 0.5 },
      { status: "pending", crashes: 0, crashBlame: 0 },
    ]);
    expect(store.inbound.get(other)).toMatchObject({ status: "processing", crashes: 0 });
    // One turn (two rows of ann's session) running alone at the death: the whole of it on each of its rows.
    for (const id of [a1, a2]) store.inbound.mark(id, "processing");
    expect(store.inbound.recoverCrashed(["telegram"])).toEqual({ events: 2, turns: 1 });
    expect([a1, a2, b1].map((id) => store.inbound.get(id))).toMatchObject([
      { crashes: 2, crashBlame: 1.5 },
      { crashes: 2, crashBlame: 1.5 },
      { crashes: 1, crashBlame: 0.5 },
    ]);
  });

  it("tracks attempts and errors, and prunes only finished events", () => {
    const store = memoryStore();
    const id = store.inbound.record("slack", "e1", "k", {}, 100).id;
    const keep = store.inbound.record("slack", "e2", "k", {}, 100).id;
    store.inbound.mark(id, "processing");
    store.inbound.mark(id, "pending", "provider timeout");
    store.inbound.mark(id, "processing");
    expect(store.inbound.get(id)).toMatchObject({ status: "processing", attempts: 2, error: null, finishedAt: null });
    store.inbound.mark(id, "failed", "gave up");
    expect(store.inbound.get(id)).toMatchObject({ status: "failed", error: "gave up" });
    expect(store.inbound.mark(999, "done")).toBe(false);
    expect(store.inbound.prune(200)).toBe(1);
    expect(store.inbound.get(id)).toBeNull();
    expect(store.inbound.get(keep)?.status).toBe("pending");
  });

  it("never reuses an id after pruning everything", () => {
    const store = memoryStore();
    const first = store.inbound.record("telegram", "1", "k", {}, 1).id;
    store.inbound.mark(first, "done");
    store.inbound.prune(1e12);
    expect(store.inbound.record("telegram", "2", "k", {}).id).toBeGreaterThan(first);
  });
});

describe("outbound messages", () => {
  it("claims a key once and remembers what was sent", () => {
    const store = memoryStore();
    expect(store.outbound.claim("7:reply:0", "telegram", "chat")).toEqual({ state: "new" });
    expect(store.outbound.claim("7:reply:0", "telegram", "chat")).toEqual({ state: "pending" });
    expect(store.outbound.markSent("7:reply:0", ["m1", "m2"])).toBe(true);
    expect(store.outbound.claim("7:reply:0", "telegram", "chat")).toEqual({ state: "sent", messageIds: ["m1", "m2"] });
    expect(store.outbound.markSent("unknown", [])).toBe(false);
  });

  it("releases a failed claim so it can be sent later, but never a sent one", () => {
    const store = memoryStore();
    store.outbound.claim("k1", "slack", "c");
    expect(store.outbound.release("k1")).toBe(true);
    expect(store.outbound.claim("k1", "slack", "c")).toEqual({ state: "new" });
    store.outbound.markSent("k1", ["ts1"]);
    expect(store.outbound.release("k1")).toBe(false);
    expect(store.outbound.prune(Number.MAX_SAFE_INTEGER)).toBe(1);
  });
});

describe("approval decisions", () => {
  it("records each request once and lists by session", () => {
    const store = memoryStore();
    const base = {
      sessionKey: "tg:1",
      platform: "telegram",
      command: "rm -rf build",
      category: "recursive delete",
      decidedBy: "42",
      reason: null,
      requestedAt: 10,
      decidedAt: 11,
    };
    expect(store.approvals.record({ ...base, requestId: "r1", sessionId: "s1", choice: "once" })).toBe(true);
    expect(store.approvals.record({ ...base, requestId: "r1", sessionId: "s1", choice: "deny" })).toBe(false);
    store.approvals.record({ ...base, requestId: "r2", sessionId: "s1", choice: "timeout", decidedBy: null, decidedAt: 20 });
    store.approvals.record({ ...base, requestId: "r3", sessionId: "s2", choice: "always" });
    expect(store.approvals.listBySession("s1").map((d) => [d.requestId, d.choice])).toEqual([
      ["r1", "once"],
      ["r2", "timeout"],
    ]);
    expect(store.approvals.listBySessionKey("tg:1")).toHaveLength(3);
    expect(() => store.approvals.record({ ...base, requestId: "r4", sessionId: null, choice: "maybe" as never })).toThrow();
  });
});

describe("pairing", () => {
  it("stores requests, paired users, failures and lockouts", () => {
    const store = memoryStore();
    const id = store.pairing.insertRequest({
      platform: "telegram",
      userId: "9",
      displayName: "Ann",
      codeHash: "h1",
      salt: "s1",
      createdAt: 100,
      expiresAt: 200,
    });
    store.pairing.insertRequest({ platform: "discord", userId: "9", codeHash: "h", salt: "s", createdAt: 100, expiresAt: 150 });
    // A newer request from the same user replaces the old code.
    expect(
      store.pairing.insertRequest({ platform: "telegram", userId: "9", displayName: "Ann", codeHash: "h2", salt: "s2", createdAt: 120, expiresAt: 220 }),
    ).toBe(id);
    expect(store.pairing.getRequest("telegram", "9")).toMatchObject({ id, codeHash: "h2", salt: "s2", displayName: "Ann" });
    expect(store.pairing.listRequests().map((r) => r.platform)).toEqual(["discord", "telegram"]);
    expect(store.pairing.countActiveRequests("telegram", 210)).toBe(1);
    expect(store.pairing.countActiveRequests("telegram", 230)).toBe(0);
    expect(store.pairing.pruneRequests(110)).toBe(1);
    expect(store.pairing.deleteRequest(id)).toBe(true);
    expect(store.pairing.listRequests()).toEqual([]);

    store.pairing.addPaired({ platform: "telegram", userId: "9", displayName: "Ann", approvedBy: "cli" });
    expect(store.pairing.isPaired("telegram", "9")).toBe(true);
    expect(store.pairing.isPaired("discord", "9")).toBe(false);
    expect(store.pairing.listPaired("telegram")).toEqual([
      { platform: "telegram", userId: "9", displayName: "Ann", approvedAt: expect.any(Number), approvedBy: "cli" },
    ]);
    expect(store.pairing.removePaired("telegram", "9")).toBe(true);
    expect(store.pairing.removePaired("telegram", "9")).toBe(false);

    store.pairing.recordFailure("telegram", "9", 10);
    store.pairing.recordFailure("telegram", null, 20);
    expect(store.pairing.countFailures("telegram", 15)).toBe(1);
    expect(store.pairing.pruneFailures(15)).toBe(1);
    expect(store.pairing.getLockout("telegram")).toEqual({ failures: 0, lockedUntil: 0 });
    store.pairing.setLockout("telegram", 5, 999);
    expect(store.pairing.getLockout("telegram")).toEqual({ failures: 5, lockedUntil: 999 });
  });
});

describe("session routes and home channels", () => {
  it("routes keys to sessions, keeps known details, and tracks resume flags", () => {
    const store = memoryStore();
    const s1 = store.sessions.create({ source: "telegram" });
    const s2 = store.sessions.create({ source: "telegram" });
    store.routes.set({ sessionKey: "tg:chat:1", sessionId: s1, platform: "telegram", chatId: "1", userId: "u" });
    store.routes.set({ sessionKey: "tg:chat:1", sessionId: s2 });
    expect(store.routes.get("tg:chat:1")).toMatchObject({
      sessionId: s2,
      platform: "telegram",
      chatId: "1",
      userId: "u",
      threadId: null,
      resumePending: false,
    });
    expect(() => store.routes.set({ sessionKey: "x", sessionId: "no-such-session" })).toThrow(); // foreign key
    store.routes.set({ sessionKey: "tg:chat:2", sessionId: s1 });
    expect(store.routes.markResumePending("tg:chat:2", true)).toBe(true);
    expect(store.routes.markResumePending("tg:chat:1", true)).toBe(true);
    expect(store.routes.listResumePending().map((r) => r.sessionKey)).toEqual(["tg:chat:2", "tg:chat:1"]);
    store.routes.markResumePending("tg:chat:2", false);
    expect(store.routes.listResumePending().map((r) => r.sessionKey)).toEqual(["tg:chat:1"]);
    expect(store.routes.markResumePending("missing", true)).toBe(false);
    expect(store.routes.bySession(s1).map((r) => r.sessionKey)).toEqual(["tg:chat:2"]);
    expect(store.routes.delete("tg:chat:2")).toBe(true);
    expect(store.routes.get("tg:chat:2")).toBeNull();
  });

  it("keeps one home channel per platform", () => {
    const store = memoryStore();
    store.routes.setHome({ platform: "telegram", chatId: "100", name: "Ops" });
    store.routes.setHome({ platform: "telegram", chatId: "200", threadId: "7" });
    store.routes.setHome({ platform: "discord", chatId: "300" });
    expect(store.routes.getHome("telegram")).toMatchObject({ chatId: "200", threadId: "7", name: null });
    expect(store.routes.listHomes().map((h) => h.platform)).toEqual(["discord", "telegram"]);
    expect(store.routes.deleteHome("discord")).toBe(true);
    expect(store.routes.getHome("discord")).toBeNull();
  });
});
