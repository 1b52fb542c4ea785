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
import { addressPolicy } from "./address-guard.js";
import { braveBackend } from "./backends/brave.js";
import { directExtract } from "./backends/direct.js";
import { duckDuckGoBackend } from "./backends/duckduckgo.js";
import { searxngBackend } from "./backends/searxng.js";
import { tavilyExtract, tavilySearch } from "./backends/tavily.js";
import type { ApiEnv, ExtractBackend, SearchBackend } from "./backends/types.js";
import { createDispatchers, fetchPage, type HttpResult } from "./http.js";
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
  const policy = addressPolicy(web.allow_private_urls, web.private_allowlist);
  const dispatchers = createDispatchers(policy);
  const api: ApiEnv = { dispatcher: dispatchers.apis, timeoutMs: web.timeout_s * 1000, userAgent: web.user_agent };
  const limits = { timeoutMs: web.timeout_s * 1000, maxBytes: web.max_page_bytes, maxRedirects: web.max_redirects, policy, userAgent: web.user_agent };
  const extractBackend: ExtractBackend =
    web.extract_backend === "tavily" ? tavilyExtract(web.tavily.url, web.tavily.api_key ?? "", api, policy) : directExtract(dispatchers.pages, limits);
  return {
    search: createWebSearchTool(searchBackend(web, api), web.max_results),
    extract: createWebExtractTool({
      backend: extractBackend,
      maxUrls: web.max_urls,
      limits: { minChars: web.summarize_min_chars, maxOutputChars: web.summary_max_chars, maxContentChars: web.max_content_chars },
      summarize: web.summarize ? deps.summarize : undefined,
    }),
    get: (url, l, signal) => fetchPage(dispatchers.pages, url, { ...limits, timeoutMs: l.timeoutMs, maxBytes: l.maxBytes }, signal),
    close: () => dispatchers.close(),
  };
}

/** The configured search backend; `auto` prefers a keyed API, then a SearXNG instance, then DuckDuckGo. */
export function searchBackend(web: WebConfig, api: ApiEnv): SearchBackend {
  const choice = web.search_backend === "auto" ? autoBackend(web) : web.search_backend;
  switch (choice) {
    case "tavily":
      return tavilySearch(web.tavily.url, web.tavily.api_key ?? "", api);
    case "brave":
      return braveBackend(web.brave.url, web.brave.api_key ?? "", api);
    case "searxng":
      return searxngBackend(web.searxng.url ?? "", api);
    default:
      return duckDuckGoBackend(web.duckduckgo.url, api);
  }
}

function autoBackend(web: WebConfig): Exclude<WebConfig["search_backend"], "auto"> {
  if (web.tavily.api_key) return "tavily";
  if (web.brave.api_key) return "brave";
  if (web.searxng.url) return "searxng";
  return "duckduckgo";
}

export { addressPolicy, isPublicAddress, checkUrlShape, type AddressPolicy } from "./address-guard.js";
export { htmlToMarkdown, readablePage } from "./readable.js";
export type { SearchBackend, ExtractBackend, SearchHit, ExtractedPage } from "./backends/types.js";
