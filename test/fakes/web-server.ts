/**
 * A fake web for the web tools' tests, on 127.0.0.1 port 0: the four search
 * backends' wire formats and arbitrary pages.
 *
 *   POST /ddg/html/                  DuckDuckGo's HTML endpoint (form field q): result blocks as html.duckduckgo.com sends them, one ad first
 *   GET  /searxng/search?q=&format=  SearXNG's JSON API (403 unless format=json, as an instance without the json format answers)
 *   GET  /brave/res/v1/web/search    Brave Search (X-Subscription-Token must equal `keys.brave`, else 401)
 *   POST /tavily/search, /tavily/extract   Tavily (Authorization: Bearer `keys.tavily`, else 401)
 *   anything else                    a page set with `page(path, …)`, else 404
 *
 * Search results come from `results` (the same list for every backend), each
 * title prefixed with the query so a test can tell queries apart. Every
 * request is recorded. `close()` destroys open sockets.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server.js";

export interface FakeHit {
  readonly title: string;
  readonly url: string;
  readonly description: string;
}

export interface FakePage {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Milliseconds before the response starts (timeouts). */
  readonly delayMs?: number;
}

export interface RecordedWebRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export interface FakeWeb {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedWebRequest[];
  results: FakeHit[];
  readonly keys: { brave: string; tavily: string };
  page(path: string, page: FakePage): void;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function ddgHtml(query: string, hits: readonly FakeHit[]): string {
  const block = (h: FakeHit, ad: boolean) => `
<div class="result results_links results_links_deep web-result ${ad ? "result--ad" : ""}">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(h.url)}&amp;rut=abc">${esc(h.title)}</a></h2>
    <div class="result__extras"><div class="result__extras__url"><a class="result__url" href="${esc(h.url)}">${esc(new URL(h.url).host)}</a></div></div>
    <a class="result__snippet" href="${esc(h.url)}">${esc(h.description).replace(/(\w+)/, "<b>$1</b>")}</a>
    <div class="clear"></div>
  </div>
</div>`;
  const ad = block({ title: "Sponsored thing", url: "https://ads.example/buy", description: "An advertisement." }, true);
  return `<!DOCTYPE html><html><head><title>${esc(query)} at DuckDuckGo</title></head><body><div id="links" class="results">${ad}${hits.map((h) => block(h, false)).join("")}</div></body></html>`;
}

function send(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-length": String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, JSON.stringify(value), { "content-type": "application/json" });
}

export async function startFakeWeb(): Promise<FakeWeb> {
  const pages = new Map<string, FakePage>();
  const web: Omit<FakeWeb, "url" | "port" | "close"> = {
    requests: [],
    results: [
      { title: "Result one", url: "https://one.example/a", description: "The first result." },
      { title: "Result two", url: "https://two.example/b", description: "The second result." },
      { title: "Result three", url: "https://three.example/c", description: "The third result." },
    ],
    keys: { brave: "brave-key-123", tavily: "tvly-key-456" },
    page: (path, page) => void pages.set(path, page),
  };
  const hitsFor = (q: string) => web.results.map((h) => ({ ...h, title: `${q}: ${h.title}` }));

  const handle = async (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? "/", "http://x");
    const path = url.pathname;
    if (req.method === "POST" && path === "/ddg/html/")
      return send(res, 200, ddgHtml(new URLSearchParams(body).get("q") ?? "", hitsFor(new URLSearchParams(body).get("q") ?? "")), {
        "content-type": "text/html; charset=utf-8",
      });
    if (path === "/searxng/search") {
      if (url.searchParams.get("format") !== "json") return send(res, 403, "Forbidden", { "content-type": "text/html" });
      const q = url.searchParams.get("q") ?? "";
      return json(res, 200, {
        query: q,
        number_of_results: 0,
        results: hitsFor(q).map((h) => ({ url: h.url, title: h.title, content: h.description, engine: "fake", score: 1 })),
      });
    }
    if (path === "/brave/res/v1/web/search") {
      if (req.headers["x-subscription-token"] !== web.keys.brave)
        return json(res, 401, { type: "ErrorResponse", error: { code: "SUBSCRIPTION_TOKEN_INVALID", status: 401 } });
      const q = url.searchParams.get("q") ?? "";
      const count = Number(url.searchParams.get("count") ?? "20");
      return json(res, 200, {
        type: "search",
        query: { original: q },
        web: {
          type: "search",
          results: hitsFor(q)
            .slice(0, count)
            .map((h) => ({ title: h.title, url: h.url, description: `<strong>${esc(h.description)}</strong>` })),
        },
      });
    }
    if (path.startsWith("/tavily/")) return tavily(req, res, path, body);
    const page = pages.get(path);
    if (!page) return send(res, 404, "not found", { "content-type": "text/plain" });
    if (page.delayMs) await new Promise((r) => setTimeout(r, page.delayMs));
    return send(res, page.status ?? 200, page.body ?? "", { ...page.headers });
  };

  const tavily = (req: IncomingMessage, res: ServerResponse, path: string, body: string) => {
    if (req.headers["authorization"] !== `Bearer ${web.keys.tavily}`) return json(res, 401, { detail: { error: "Unauthorized: missing or invalid API key." } });
    const payload = JSON.parse(body || "{}") as { query?: string; max_results?: number; urls?: string[] };
    if (path === "/tavily/search") {
      const q = payload.query ?? "";
      return json(res, 200, {
        query: q,
        results: hitsFor(q)
          .slice(0, payload.max_results ?? 5)
          .map((h) => ({ title: h.title, url: h.url, content: h.description, score: 0.9 })),
        response_time: 0.1,
      });
    }
    const urls = payload.urls ?? [];
    const known = urls.filter((u) => pages.has(new URL(u).pathname));
    return json(res, 200, {
      results: known.map((u) => ({ url: u, raw_content: String(pages.get(new URL(u).pathname)?.body ?? "") })),
      failed_results: urls.filter((u) => !known.includes(u)).map((u) => ({ url: u, error: "Failed to fetch url" })),
    });
  };

  const server = await listenOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      web.requests.push({ method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body });
      handle(req, res, body).catch((err: unknown) => send(res, 500, String(err)));
    });
  });
  return Object.assign(web, {
    url: server.url,
    port: server.port,
    close: () => server.close(),
  }) as FakeWeb;
}
