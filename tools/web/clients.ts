/**
 * The web tools' working half: the configured search and extract backends
 * over their HTTP dispatchers (undici), with the HTML stack (linkedom,
 * Readability, turndown) behind them. index.ts loads this module with the
 * first search or extraction, so none of it is loaded at start.
 */
import type { Config } from "../../config/schema.js";
import { addressPolicy } from "./address-guard.js";
import { braveBackend } from "./backends/brave.js";
import { directExtract } from "./backends/direct.js";
import { duckDuckGoBackend } from "./backends/duckduckgo.js";
import { searxngBackend } from "./backends/searxng.js";
import { tavilyExtract, tavilySearch } from "./backends/tavily.js";
import type { ApiEnv, ExtractBackend, SearchBackend } from "./backends/types.js";
import { createDispatchers, fetchPage, type HttpResult } from "./http.js";

type WebConfig = Config["web"];

/** A search backend by name: what `web.search_backend` resolves to. */
export type SearchChoice = Exclude<WebConfig["search_backend"], "auto">;

export interface WebClients {
  readonly search: SearchBackend;
  readonly extract: ExtractBackend;
  /** A page GET under the extract backend's address policy, with the caller's deadline and size cap. */
  get(url: string, limits: { readonly timeoutMs: number; readonly maxBytes: number }, signal: AbortSignal): Promise<HttpResult>;
  /** Releases the HTTP connections. */
  close(): Promise<void>;
}

export function createWebClients(web: WebConfig, choice: SearchChoice): WebClients {
  const policy = addressPolicy(web.allow_private_urls, web.private_allowlist);
  const dispatchers = createDispatchers(policy);
  const api: ApiEnv = { dispatcher: dispatchers.apis, timeoutMs: web.timeout_s * 1000, userAgent: web.user_agent };
  const limits = { timeoutMs: web.timeout_s * 1000, maxBytes: web.max_page_bytes, maxRedirects: web.max_redirects, policy, userAgent: web.user_agent };
  const extract: ExtractBackend =
    web.extract_backend === "tavily" ? tavilyExtract(web.tavily.url, web.tavily.api_key ?? "", api, policy) : directExtract(dispatchers.pages, limits);
  return {
    search: searchBackend(web, choice, api),
    extract,
    get: (url, l, signal) => fetchPage(dispatchers.pages, url, { ...limits, timeoutMs: l.timeoutMs, maxBytes: l.maxBytes }, signal),
    close: () => dispatchers.close(),
  };
}

function searchBackend(web: WebConfig, choice: SearchChoice, api: ApiEnv): SearchBackend {
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
