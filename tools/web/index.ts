/**
 * The web toolset: `web_search` and `web_extract` over the backends the
 * config picks. `close()` releases the HTTP connections (the composition root
 * calls it at shutdown).
 *
 *   const web = createWebTools(config.web, { summarize });
 *   registry.register(web.search); registry.register(web.extract);
 */
import type { Summarizer } from "../../agent/index.js";
import type { ToolDefinition } from "../../agent/types.js";
import type { Config } from "../../config/schema.js";
import type { ExtractBackend, SearchBackend } from "./backends/types.js";
import type { SearchChoice, WebClients } from "./clients.js";
import type { HttpResult } from "./http.js";
import { createWebExtractTool, type WebExtractArgs } from "./web-extract-tool.js";
import { createWebSearchTool, type WebSearchArgs } from "./web-search-tool.js";

export type WebConfig = Config["web"];

export interface WebTools {
  readonly search: ToolDefinition<WebSearchArgs>;
  readonly extract: ToolDefinition<WebExtractArgs>;
  /**
   * A GET under the same address policy as web_extract (every redirect checked again), for other places that fetch
   * a URL the model wrote — such as an image a reply links to. Rejects with a WebError.
   */
  get(url: string, limits: GuardedGetLimits, signal: AbortSignal): Promise<HttpResult>;
  close(): Promise<void>;
}

export interface GuardedGetLimits {
  readonly timeoutMs: number;
  /** A longer body is cut here and reported `truncated`. */
  readonly maxBytes: number;
}

export interface WebToolDeps {
  /** Summaries of long pages (the auxiliary client's `web_extract` task). */
  readonly summarize?: Summarizer | undefined;
}

export function createWebTools(web: WebConfig, deps: WebToolDeps = {}): WebTools {
  const clients = lazyClients(web);
  return {
    search: createWebSearchTool(clients.search, web.max_results),
    extract: createWebExtractTool({
      backend: clients.extract,
      maxUrls: web.max_urls,
      limits: { minChars: web.summarize_min_chars, maxOutputChars: web.summary_max_chars, maxContentChars: web.max_content_chars },
      summarize: web.summarize ? deps.summarize : undefined,
    }),
    get: clients.get,
    close: clients.close,
  };
}

/**
 * The backends, their HTTP clients and the HTML stack (clients.ts) load with
 * the first search, extraction or guarded GET: a daemon whose model never
 * browses never loads them, and none of it slows the start.
 */
function lazyClients(web: WebConfig): WebClients {
  const choice = searchChoice(web);
  let loaded: Promise<WebClients> | undefined;
  const load = () => (loaded ??= import("./clients.js").then((m) => m.createWebClients(web, choice)));
  const search: SearchBackend = { name: choice, search: async (query, limit, signal) => (await load()).search.search(query, limit, signal) };
  const extract: ExtractBackend = { name: web.extract_backend, extract: async (url, signal) => (await load()).extract.extract(url, signal) };
  const get: WebClients["get"] = async (url, limits, signal) => (await load()).get(url, limits, signal);
  // Nothing to release when no call loaded them (or loading failed: that call reported it).
  return {
    search,
    extract,
    get,
    close: async () =>
      loaded?.then(
        (c) => c.close(),
        () => undefined,
      ),
  };
}

/** The configured search backend; `auto` prefers a keyed API, then a SearXNG instance, then DuckDuckGo. */
function searchChoice(web: WebConfig): SearchChoice {
  if (web.search_backend !== "auto") return web.search_backend;
  if (web.tavily.api_key) return "tavily";
  if (web.brave.api_key) return "brave";
  if (web.searxng.url) return "searxng";
  return "duckduckgo";
}

export { type AddressPolicy, addressPolicy, checkUrlShape, isPublicAddress } from "./address-guard.js";
export type { ExtractBackend, ExtractedPage, SearchBackend, SearchHit } from "./backends/types.js";
