import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../agent/types.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { parseQuery, wordMatchExpression } from "../../gateway/store/search/query.js";
import { until } from "../wait.js";
import { steppingClock, TOOL_CALL_MESSAGE } from "./helpers.js";

let store: Store;
let clock: ReturnType<typeof steppingClock>;
beforeEach(() => {
  clock = steppingClock();
  store = openStore(":memory:", { now: clock.now });
});
afterEach(() => store.close());

const ids = (q: string, extra: Partial<Parameters<Store["search"]["messages"]>[0]> = {}) =>
  store.search.messages({ query: q, limit: 50, ...extra }).map((h) => h.messageId);

function session(source = "telegram", title?: string): string {
  const id = store.sessions.create({ source });
  if (title) store.sessions.setTitle(id, title);
  return id;
}

describe("message search", () => {
  it("finds content, tool names and tool-call arguments", () => {
    const s = session();
    const user = store.messages.append(s, { role: "user", content: "How do I expose a service?" });
    const call = store.messages.append(s, TOOL_CALL_MESSAGE);
    const result = store.messages.append(s, { role: "tool", tool_call_id: "call_abc123", tool_name: "read_file", content: "apiVersion: v1" });
    expect(ids("expose service")).toEqual([user]);
    expect(ids("web_search")).toEqual([call]); // function name inside tool_calls
    expect(ids("kubernetes ingress")).toEqual([call]); // arguments inside tool_calls
    expect(ids("read_file")).toEqual([result]); // tool_name column
    // The tool-call envelope is not indexed: every call would match these.
    expect(ids("arguments")).toEqual([]);
    expect(ids("function")).toEqual([]);
  });

  it("finds substrings the word index cannot (trigram fallback)", () => {
    const s = session();
    const id = store.messages.append(s, { role: "assistant", content: "call getUserNameById from src/services/accountLookup.ts" });
    expect(ids("getusernamebyid")).toEqual([id]); // a whole token: word index
    expect(ids("UserName")).toEqual([id]); // inside a camelCase token: trigram
    expect(ids("countLook")).toEqual([id]);
    expect(ids("services/account")).toEqual([id]);
    expect(ids("zzzqqq")).toEqual([]);
  });

  it("finds CJK text of any length through the trigram index", () => {
    const s = session();
    const zh = store.messages.append(s, { role: "user", content: "你好世界，今天天气很好" });
    const ja = store.messages.append(s, { role: "user", content: "日本語のテキストを検索する" });
    const mixed = store.messages.append(s, { role: "user", content: "deploy 到 東京 region" });
    expect(ids("你好世界")).toEqual([zh]);
    expect(ids("世界")).toEqual([zh]); // 2 characters: expanded through the trigram vocabulary
    expect(ids("天气很好")).toEqual([zh]);
    expect(ids("日本語")).toEqual([ja]);
    expect(ids("テキスト")).toEqual([ja]);
    expect(ids("東京 deploy")).toEqual([mixed]);
    expect(ids("日本語 你好")).toEqual([]); // AND across terms
    const hit = store.search.messages({ query: "世界" })[0];
    expect(hit?.snippet).toContain(">>>世界<<<");
  });

  it("ranks by BM25: more occurrences and shorter messages first, rarer terms weigh more", () => {
    const s = session();
    const once = store.messages.append(s, { role: "user", content: "docker is mentioned once in this rather long message about many other things entirely" });
    const twice = store.messages.append(s, { role: "user", content: "docker docker compose" });
    const old = store.messages.append(s, { role: "user", content: "docker again, with filler words to make it longer than the short one" });
    expect(ids("docker")[0]).toBe(twice);
    expect(new Set(ids("docker"))).toEqual(new Set([once, twice, old]));
    // "kafka" is rare, "common" is everywhere: a message with the rare term twice beats one with the common term twice.
    for (let i = 0; i < 30; i++) store.messages.append(s, { role: "user", content: `common filler ${i}` });
    const rareHeavy = store.messages.append(s, { role: "user", content: "kafka kafka common" });
    const commonHeavy = store.messages.append(s, { role: "user", content: "kafka common common" });
    expect(ids("kafka common")).toEqual([rareHeavy, commonHeavy]);
  });

  it("returns snippets around the match with every occurrence marked", () => {
    const s = session();
    const long = `${"intro words here ".repeat(30)}the needle sits here and another needle follows ${"outro text ".repeat(30)}`;
    store.messages.append(s, { role: "assistant", content: long });
    const [hit] = store.search.messages({ query: "needle" });
    expect(hit?.snippet).toMatch(/^…/);
    expect(hit?.snippet).toMatch(/…$/);
    expect(hit?.snippet.match(/>>>needle<<</g)).toHaveLength(2);
    expect(hit?.snippet.length).toBeLessThan(260);
  });

  it("reports session, role, source, title and timestamp for each hit", () => {
    const s = session("discord", "Deploy notes");
    const id = store.messages.append(s, { role: "user", content: "rollback plan" });
    expect(store.search.messages({ query: "rollback" })).toEqual([
      {
        sessionId: s,
        messageId: id,
        role: "user",
        source: "discord",
        timestamp: expect.any(Number),
        title: "Deploy notes",
        snippet: ">>>rollback<<< plan",
        score: expect.any(Number),
      },
    ]);
  });

  it("filters by role, source and time, and paginates without overlap", () => {
    const tg = session("telegram");
    const dc = session("discord");
    const all: number[] = [];
    for (let i = 0; i < 12; i++) all.push(store.messages.append(i % 2 ? tg : dc, { role: i % 3 === 0 ? "user" : "assistant", content: `release item ${i}` }));
    expect(ids("release", { source: "telegram" }).sort()).toEqual(all.filter((_, i) => i % 2).sort());
    expect(ids("release", { role: "user" }).sort()).toEqual(all.filter((_, i) => i % 3 === 0).sort());
    const rows = store.messages
      .list(tg)
      .concat(store.messages.list(dc))
      .sort((a, b) => a.id - b.id);
    const mid = rows[6]?.timestamp ?? 0;
    expect(ids("release", { since: mid }).sort()).toEqual(
      rows
        .filter((r) => r.timestamp >= mid)
        .map((r) => r.id)
        .sort(),
    );
    expect(ids("release", { until: mid }).sort()).toEqual(
      rows
        .filter((r) => r.timestamp <= mid)
        .map((r) => r.id)
        .sort(),
    );
    expect(ids("release", { since: clock.peek() + 100_000 })).toEqual([]);
    const pages = [0, 5, 10].map((offset) => store.search.messages({ query: "release", limit: 5, offset }).map((h) => h.messageId));
    expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
    expect(new Set(pages.flat()).size).toBe(12);
  });

  it("supports prefixes, phrases, exclusion and OR", () => {
    const s = session();
    const a = store.messages.append(s, { role: "user", content: "configure the reverse proxy" });
    const b = store.messages.append(s, { role: "user", content: "configuration file for the proxy reverse" });
    const c = store.messages.append(s, { role: "user", content: "unrelated content" });
    expect(new Set(ids("config*"))).toEqual(new Set([a, b]));
    expect(ids('"reverse proxy"')).toEqual([a]);
    expect(ids("proxy -configuration")).toEqual([a]);
    expect(new Set(ids("unrelated OR configure"))).toEqual(new Set([a, c]));
    expect(ids("co*")).toEqual([]); // a 2-letter stem is searched as a whole word
  });

  it("never lets FTS syntax errors escape", () => {
    const s = session();
    store.messages.append(s, { role: "user", content: 'text with "quotes" and a:b near(x)' });
    for (const q of [
      '"',
      '"unterminated',
      "NEAR(a b",
      "a:b",
      "*",
      "-",
      "OR",
      "AND OR NOT",
      "(((",
      "^start",
      "col:value",
      "a + b",
      "'; DROP TABLE messages; --",
      "\\",
      "%",
      "_",
      "",
      "   ",
    ]) {
      expect(() => store.search.messages({ query: q })).not.toThrow();
    }
    expect(ids("a:b")).toHaveLength(1);
    expect(ids('"quotes"')).toHaveLength(1);
  });

  it("builds quoted FTS expressions from any input", () => {
    expect(wordMatchExpression(parseQuery('foo "bar baz" qux* -nope OR x:y'))).toBe('(("foo" AND "bar baz" AND "qux"*) NOT ("nope")) OR ("x y")');
    expect(parseQuery("-only -negative").clauses).toEqual([]);
  });

  it("indexes in the background and catches up before searching", async () => {
    const s = session();
    const id = store.messages.append(s, { role: "user", content: "deferred indexing works" });
    expect(store.search.pending()).toBe(1);
    expect(ids("deferred")).toEqual([id]); // catch-up first
    expect(store.search.pending()).toBe(0);
    const local = openStore(":memory:", { indexer: { delayMs: 5 } });
    try {
      const ls = local.sessions.create({ source: "cli" });
      local.messages.append(ls, { role: "user", content: "background" });
      expect(local.search.pending()).toBe(1);
      await until(() => local.search.pending() === 0, "the background tick to index the message", 5000, 10);
      expect(local.search.pending()).toBe(0); // indexed by the background tick, no search involved
    } finally {
      local.close();
    }
  });

  it("forgets deleted messages and indexes rows that reuse their ids", () => {
    const s = session();
    store.messages.appendMany(s, [
      { role: "user", content: "alpha" },
      { role: "assistant", content: "bravo" },
      { role: "user", content: "charlie" },
    ]);
    expect(ids("charlie")).toHaveLength(1); // indexed
    expect(store.messages.deleteLast(s, 1)).toBe(1);
    expect(ids("charlie")).toEqual([]);
    const reused = store.messages.append(s, { role: "user", content: "delta" });
    expect(ids("delta")).toEqual([reused]);
    expect(ids("charlie")).toEqual([]);
    store.search.verify();
  });

  it("indexes only the head of a huge message for substrings, all of it for words", () => {
    const s = session();
    const filler = "lorem ipsum ".repeat(1000); // 12 000 characters
    const id = store.messages.append(s, {
      role: "tool",
      tool_call_id: "c",
      tool_name: "read_file",
      content: `head 東京都庁 ${filler} tail 大阪城公園 zebrafish`,
    });
    expect(ids("東京都")).toEqual([id]);
    expect(ids("阪城公")).toEqual([]); // past the trigram cap
    expect(ids("zebrafish")).toEqual([id]); // the word index has everything
    expect(store.messages.deleteLast(s, 1)).toBe(1);
    store.search.verify();
  });

  it("implements the agent's SessionSearcher", () => {
    const s = session("slack", "Ops");
    store.messages.append(s, { role: "tool", tool_call_id: "c1", tool_name: "terminal", content: "disk usage 91%" });
    expect(store.search.searcher.search({ query: "disk usage", platform: "slack", role: "tool" })).toEqual([
      {
        sessionId: s,
        messageId: expect.any(Number),
        role: "tool",
        platform: "slack",
        timestamp: expect.any(Number),
        snippet: expect.stringContaining(">>>disk<<<"),
        title: "Ops",
      },
    ]);
    expect(store.search.searcher.search({ query: "disk", platform: "telegram" })).toEqual([]);
  });
});

describe("session search", () => {
  it("finds sessions by title and by their first user message", () => {
    const titled = session("cli", "Kubernetes migration");
    store.messages.append(titled, { role: "user", content: "start" });
    const first = session();
    store.messages.appendMany(first, [
      { role: "user", content: "plan the kubernetes upgrade" },
      { role: "assistant", content: "ok" },
    ] satisfies Message[]);
    const later = session();
    store.messages.appendMany(later, [
      { role: "user", content: "something else" },
      { role: "user", content: "and kubernetes only later" },
    ]);
    const found = store.search.sessions("kubernetes");
    expect(found.map((m) => [m.session.id, m.matchedOn])).toEqual([
      [titled, "title"],
      [first, "first_message"],
    ]);
    expect(found[1]?.snippet).toContain(">>>kubernetes<<<");
  });
});
