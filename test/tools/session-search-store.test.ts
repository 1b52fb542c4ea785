/**
 * session_search through the real store (SQLite ":memory:", FTS5): ranking,
 * filters, pagination and the time contract (epoch ms) end to end.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../gateway/store/index.js";
import { createSessionSearchTool } from "../../tools/session-search/index.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { callTool } from "./call-tool.js";
import { makeCtx, never, parse } from "./core-tools-context.js";

const NOW_MS = Date.parse("2025-06-15T12:00:00Z");
const DAY_MS = 86_400_000;

let store: Store;
let ids: Record<string, string>;

beforeEach(() => {
  store = openStore(":memory:", { now: () => NOW_MS });
  const s1 = store.sessions.create({ source: "telegram", userId: "u1", startedAt: NOW_MS - 2 * DAY_MS });
  const s2 = store.sessions.create({ source: "discord", userId: "u2", startedAt: NOW_MS - 20 * DAY_MS });
  const s3 = store.sessions.create({ source: "cli", startedAt: NOW_MS - 1 * DAY_MS });
  store.sessions.setTitle(s1, "Deploy notes");
  ids = { s1, s2, s3 };
  store.messages.append(
    s1,
    { role: "user", content: "How do I reload nginx after changing the nginx config? nginx keeps the old one." },
    { timestamp: NOW_MS - 2 * DAY_MS },
  );
  store.messages.append(
    s1,
    { role: "assistant", content: "Run the deploy script, then check the service status, the logs, the health endpoint and finally nginx itself." },
    { timestamp: NOW_MS - 2 * DAY_MS + 5000 },
  );
  store.messages.append(s2, { role: "user", content: "nginx returns 502 behind the load balancer" }, { timestamp: NOW_MS - 20 * DAY_MS });
  store.messages.append(s3, { role: "user", content: "pancake recipe please" }, { timestamp: NOW_MS - DAY_MS });
});
afterEach(() => store.close());

async function search(args: Record<string, unknown>): Promise<Record<string, any>> {
  const ctx = { ...makeCtx({ sessions: store.search.searcher }), clock: new FakeClock({ start: NOW_MS, instant: true }) };
  return parse(await callTool(createSessionSearchTool(), args, ctx, never()));
}

describe("session_search over the real store", () => {
  it("ranks the message that is most about the query first and fills every field", async () => {
    const r = await search({ query: "nginx" });
    expect(r.success).toBe(true);
    expect(r.count).toBe(3);
    const first = r.results[0];
    expect(first).toMatchObject({
      session_id: ids.s1,
      title: "Deploy notes",
      role: "user",
      platform: "telegram",
      time: new Date(NOW_MS - 2 * DAY_MS).toISOString(),
    });
    expect(first.snippet).toMatch(/nginx/i);
    expect(r.results.map((x: { session_id: string }) => x.session_id).sort()).toEqual([ids.s1, ids.s1, ids.s2].sort());
    expect((await search({ query: "pancake" })).results[0].session_id).toBe(ids.s3);
    expect((await search({ query: "kubernetes" })).count).toBe(0);
  });

  it("filters by role, platform and time", async () => {
    expect((await search({ query: "nginx", role: "assistant" })).results.map((x: { role: string }) => x.role)).toEqual(["assistant"]);
    expect((await search({ query: "nginx", platform: "discord" })).results.map((x: { session_id: string }) => x.session_id)).toEqual([ids.s2]);
    const recent = await search({ query: "nginx", since: "7d" });
    expect(recent.results.every((x: { session_id: string }) => x.session_id === ids.s1)).toBe(true);
    expect(recent.count).toBe(2);
    const old = await search({ query: "nginx", until: "2025-05-30" });
    expect(old.results.map((x: { session_id: string }) => x.session_id)).toEqual([ids.s2]);
  });

  it("paginates without repeating or skipping hits", async () => {
    const all = (await search({ query: "nginx", limit: 10 })).results.map((x: { message_id: number }) => x.message_id);
    const p1 = await search({ query: "nginx", limit: 2 });
    expect(p1).toMatchObject({ count: 2, has_more: true, next_offset: 2 });
    const p2 = await search({ query: "nginx", limit: 2, offset: 2 });
    expect(p2).toMatchObject({ count: 1, has_more: false });
    expect([...p1.results, ...p2.results].map((x: { message_id: number }) => x.message_id)).toEqual(all);
  });
});
