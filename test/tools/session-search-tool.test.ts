import { describe, expect, it } from "vitest";
import type { Role, SessionSearcher, SessionSearchHit, SessionSearchQuery } from "../../agent/types.js";
import { createSessionSearchTool, parseBound } from "../../tools/session-search/index.js";
import { FakeClock } from "../fakes/fake-clock.js";
import { callTool } from "./call-tool.js";
import { makeCtx, never, parse } from "./core-tools-context.js";

const NOW = Date.parse("2025-06-15T12:00:00Z");
const DAY = 86_400_000;

interface Row {
  sessionId: string;
  title: string | null;
  platform: string;
  role: Role;
  timestamp: number;
  content: string;
}

const ROWS: Row[] = [
  {
    sessionId: "s1",
    title: "Deploy notes",
    platform: "telegram",
    role: "user",
    timestamp: NOW - 1 * DAY,
    content: "how do I deploy the nginx config to staging",
  },
  {
    sessionId: "s1",
    title: "Deploy notes",
    platform: "telegram",
    role: "assistant",
    timestamp: NOW - 1 * DAY + 1000,
    content: "Deploy nginx with the deploy script; nginx reload after deploy",
  },
  { sessionId: "s2", title: null, platform: "discord", role: "user", timestamp: NOW - 10 * DAY, content: "nginx keeps returning 502 on deploy" },
  { sessionId: "s3", title: "Cooking", platform: "cli", role: "user", timestamp: NOW - 3 * DAY, content: "recipe for pancakes" },
  { sessionId: "s4", title: "Old", platform: "slack", role: "tool", timestamp: NOW - 40 * DAY, content: "nginx -t: syntax ok, deploy finished" },
];

/** A small in-test SessionSearcher: every term must occur; rank by term hits, then newest first. */
function arraySearcher(rows: readonly Row[], seen: SessionSearchQuery[] = []): SessionSearcher {
  return {
    search(q) {
      seen.push(q);
      const terms = q.query.toLowerCase().split(/\s+/).filter(Boolean);
      const scored = rows
        .filter((r) => (!q.role || r.role === q.role) && (!q.platform || r.platform === q.platform))
        .filter((r) => (q.since === undefined || r.timestamp >= q.since) && (q.until === undefined || r.timestamp <= q.until))
        .map((r, i) => ({
          r,
          i,
          score: terms.reduce((n, t) => n + (r.content.toLowerCase().split(t).length - 1), 0),
          all: terms.every((t) => r.content.toLowerCase().includes(t)),
        }))
        .filter((x) => x.all)
        .sort((a, b) => b.score - a.score || b.r.timestamp - a.r.timestamp);
      return scored.slice(q.offset ?? 0, (q.offset ?? 0) + (q.limit ?? 20)).map(
        (x): SessionSearchHit => ({
          sessionId: x.r.sessionId,
          messageId: x.i + 1,
          role: x.r.role,
          platform: x.r.platform,
          timestamp: x.r.timestamp,
          snippet: x.r.content,
          title: x.r.title,
        }),
      );
    },
  };
}

function setup(rows = ROWS) {
  const seen: SessionSearchQuery[] = [];
  const ctx = { ...makeCtx({ sessions: arraySearcher(rows, seen) }), clock: new FakeClock({ start: NOW, instant: true }) };
  const tool = createSessionSearchTool();
  return { seen, run: async (args: Record<string, unknown>) => parse(await callTool(tool, args, ctx, never())) };
}

describe("session_search", () => {
  it("returns ranked results with session id, title, ISO time, role and snippet", async () => {
    const { run } = setup();
    const r = await run({ query: "nginx deploy" });
    expect(r.results.map((x: { session_id: string; role: string }) => `${x.session_id}/${x.role}`)).toEqual(["s1/assistant", "s1/user", "s2/user", "s4/tool"]);
    expect(r.results[0]).toMatchObject({
      title: "Deploy notes",
      time: "2025-06-14T12:00:01.000Z",
      platform: "telegram",
      snippet: expect.stringContaining("nginx reload"),
    });
    expect(r.results[2].title).toBeNull();
    expect(r).toMatchObject({ count: 4, has_more: false, offset: 0 });
  });

  it("filters by role, platform and relative or ISO time bounds", async () => {
    const { run, seen } = setup();
    expect((await run({ query: "nginx", role: "user" })).results.map((x: { session_id: string }) => x.session_id)).toEqual(["s1", "s2"]);
    expect((await run({ query: "nginx", platform: "discord" })).results.map((x: { session_id: string }) => x.session_id)).toEqual(["s2"]);
    const week = await run({ query: "nginx", since: "7d" });
    expect(week.results.map((x: { session_id: string }) => x.session_id)).toEqual(["s1", "s1"]);
    expect(seen.at(-1)?.since).toBe(NOW - 7 * DAY);
    const window = await run({ query: "nginx", since: "2025-05-10", until: "2025-06-05" });
    expect(window.results.map((x: { session_id: string }) => x.session_id)).toEqual(["s2"]);
    expect(seen.at(-1)?.until).toBe(Date.parse("2025-06-06T00:00:00Z") - 1);
  });

  it("paginates with offset/limit and next_offset, asking the store for one extra hit", async () => {
    const { run, seen } = setup();
    const p1 = await run({ query: "nginx", limit: 3 });
    expect(seen.at(-1)).toMatchObject({ limit: 4, offset: 0 });
    expect(p1).toMatchObject({ count: 3, has_more: true, next_offset: 3 });
    const p2 = await run({ query: "nginx", limit: 3, offset: 3 });
    expect(p2).toMatchObject({ count: 1, has_more: false });
    expect(p2.next_offset).toBeUndefined();
    const past = await run({ query: "nginx", offset: 10 });
    expect(past.note).toMatch(/No more results/);
  });

  it("marks hits from the current session", async () => {
    const { run } = setup([{ ...ROWS[0]!, sessionId: "session-1" }]);
    expect((await run({ query: "nginx" })).results[0].this_session).toBe(true);
  });

  it("refuses unreadable or inverted time bounds before searching", async () => {
    const { run, seen } = setup();
    expect((await run({ query: "x", since: "last tuesday" })).error).toMatch(/not a date.*7d/);
    expect((await run({ query: "x", since: "1d", until: "7d" })).error).toMatch(/is after until/);
    expect(seen).toHaveLength(0);
  });

  it("turns a searcher failure into a result the model can act on", async () => {
    const ctx = makeCtx({
      sessions: {
        search: () => {
          throw new Error('fts5: syntax error near """');
        },
      },
    });
    const r = parse(await callTool(createSessionSearchTool(), { query: '"unbalanced' }, ctx, never()));
    expect(r.success).toBe(false);
    expect(r.error).toMatch(/Session search failed: fts5/);
  });

  it("parses relative ages in minutes, hours, days and weeks", () => {
    for (const [text, ms] of [
      ["30m", 30 * 60_000],
      ["12h", 12 * 3_600_000],
      ["2w", 14 * DAY],
      ["1.5d", 1.5 * DAY],
    ] as const) {
      expect(parseBound(text, NOW, "since")).toEqual({ ok: true, ms: NOW - ms });
    }
  });
});
