/**
 * web_search against a loopback fake of each backend's wire format: what is
 * sent (form, query string, key headers), how results are read, backend
 * selection, and errors the model can act on.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { FakeWeb } from "../fakes/web-server.js";
import { callTool } from "./call-tool.js";
import { makeCtx, never, parse } from "./core-tools-context.js";
import { useFakeWeb, webTools } from "./web-helpers.js";

const fixture = useFakeWeb();
let web: FakeWeb;
beforeEach(() => {
  web = fixture.web();
});

const search = async (config: Record<string, unknown>, args: { query: string; limit?: number }) => {
  const tools = fixture.track(webTools(config));
  return parse(await callTool(tools.search, args, makeCtx(), never()));
};

describe("web_search backends", () => {
  it("duckduckgo: posts the form, skips the ad, unwraps redirect links, honours the limit", async () => {
    const r = await search({ duckduckgo: { url: `${web.url}/ddg/html/` } }, { query: "rust async", limit: 2 });
    expect(r).toMatchObject({ success: true, backend: "duckduckgo" });
    expect(r["data"].web).toEqual([
      { position: 1, title: "rust async: Result one", url: "https://one.example/a", description: "The first result." },
      { position: 2, title: "rust async: Result two", url: "https://two.example/b", description: "The second result." },
    ]);
    const req = web.requests.at(-1)!;
    expect(req.method).toBe("POST");
    expect(req.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(new URLSearchParams(req.body).get("q")).toBe("rust async");
  });

  it("searxng: asks for JSON and reads results", async () => {
    const r = await search({ search_backend: "searxng", searxng: { url: `${web.url}/searxng` } }, { query: "zig" });
    expect(r["backend"]).toBe("searxng");
    expect(r["data"].web.map((h: { url: string }) => h.url)).toEqual(["https://one.example/a", "https://two.example/b", "https://three.example/c"]);
    expect(web.requests.at(-1)!.path).toBe("/searxng/search?q=zig&format=json");
  });

  it("searxng: an instance without the json format gets an error saying how to enable it", async () => {
    web.page("/nojson/search", { status: 403, body: "Forbidden", headers: { "content-type": "text/html" } });
    const r = await search({ search_backend: "searxng", searxng: { url: `${web.url}/nojson/` } }, { query: "x" });
    expect(r["success"]).toBe(false);
    expect(r["error"]).toMatch(/HGW_ERR_WEB_SEARCH|search backend failed/);
    expect(r["error"]).toContain("search.formats");
  });

  it("brave: sends the key, strips highlight tags, asks for the limit", async () => {
    const r = await search(
      { search_backend: "brave", brave: { api_key: web.keys.brave, url: `${web.url}/brave/res/v1/web/search` } },
      { query: "go", limit: 1 },
    );
    expect(r["data"].web).toEqual([{ position: 1, title: "go: Result one", url: "https://one.example/a", description: "The first result." }]);
    const req = web.requests.at(-1)!;
    expect(req.headers["x-subscription-token"]).toBe(web.keys.brave);
    expect(req.path).toContain("count=1");
  });

  it("brave: a rejected key is named as such", async () => {
    const r = await search({ search_backend: "brave", brave: { api_key: "wrong", url: `${web.url}/brave/res/v1/web/search` } }, { query: "go" });
    expect(r["success"]).toBe(false);
    expect(r["error"]).toContain("brave answered HTTP 401 (the API key was rejected)");
  });

  it("tavily: bearer key and JSON body", async () => {
    const r = await search({ search_backend: "tavily", tavily: { api_key: web.keys.tavily, url: `${web.url}/tavily` } }, { query: "deno", limit: 2 });
    expect(r["data"].web).toHaveLength(2);
    const req = web.requests.at(-1)!;
    expect(req.headers["authorization"]).toBe(`Bearer ${web.keys.tavily}`);
    expect(JSON.parse(req.body)).toMatchObject({ query: "deno", max_results: 2 });
  });

  it("auto picks a keyed API first, then a SearXNG instance, then DuckDuckGo", async () => {
    const base = { duckduckgo: { url: `${web.url}/ddg/html/` }, searxng: { url: `${web.url}/searxng` } };
    expect(
      (
        await search(
          {
            ...base,
            tavily: { api_key: web.keys.tavily, url: `${web.url}/tavily` },
            brave: { api_key: web.keys.brave, url: `${web.url}/brave/res/v1/web/search` },
          },
          { query: "q" },
        )
      )["backend"],
    ).toBe("tavily");
    expect((await search({ ...base, brave: { api_key: web.keys.brave, url: `${web.url}/brave/res/v1/web/search` } }, { query: "q" }))["backend"]).toBe("brave");
    expect((await search(base, { query: "q" }))["backend"]).toBe("searxng");
    expect((await search({ duckduckgo: base.duckduckgo }, { query: "q" }))["backend"]).toBe("duckduckgo");
  });
});

describe("web_search failures", () => {
  it("a backend that does not answer in time is reported as timed out", async () => {
    web.page("/slow/search", { delayMs: 2000, body: "{}" });
    const started = Date.now();
    const r = await search({ search_backend: "searxng", searxng: { url: `${web.url}/slow` }, timeout_s: 0.3 }, { query: "x" });
    expect(r["success"]).toBe(false);
    expect(r["error"]).toContain("timed out");
    expect(Date.now() - started).toBeLessThan(1800);
  });

  it("a backend that is down is named with the connection error", async () => {
    const dead = `${web.url.replace(/:\d+$/, "")}:1`;
    const r = await search({ search_backend: "searxng", searxng: { url: dead } }, { query: "x" });
    expect(r["success"]).toBe(false);
    expect(r["error"]).toMatch(/searxng: .*ECONNREFUSED/);
  });

  it("a DuckDuckGo page without results (rate limiting) says so", async () => {
    web.page("/ddg-empty/", { body: "<html><body><form>anomaly</form></body></html>", headers: { "content-type": "text/html" } });
    const r = await search({ duckduckgo: { url: `${web.url}/ddg-empty/` } }, { query: "x" });
    expect(r["success"]).toBe(false);
    expect(r["error"]).toContain("rate-limiting");
  });

  it("the config refuses a keyed backend without its key, naming the variable", async () => {
    expect(() => webTools({ search_backend: "brave" })).toThrow(/web\.brave\.api_key.*BRAVE_API_KEY/s);
    expect(() => webTools({ search_backend: "searxng" })).toThrow(/web\.searxng\.url/);
  });
});

describe("web_search in parallel", () => {
  it("concurrent searches each get their own results", async () => {
    const tools = fixture.track(webTools({ duckduckgo: { url: `${web.url}/ddg/html/` } }));
    const queries = ["alpha", "beta", "gamma", "delta", "epsilon"];
    const results = await Promise.all(queries.map((query) => callTool(tools.search, { query }, makeCtx(), never())));
    results.forEach((text, i) => expect(parse(text)["data"].web[0].title).toBe(`${queries[i]}: Result one`));
    expect(tools.search.parallelSafe).toBe(true);
  });
});
