/**
 * Tavily's search and extract APIs (`POST /search`, `POST /extract`, key as a
 * bearer token). Extraction happens on Tavily's side, so the URL's host is
 * still checked here first: the model must not learn through Tavily what it
 * may not fetch itself.
 */
import { type AddressPolicy, assertAllowedHost, checkUrlShape } from "../address-guard.js";
import { WebError } from "../web-error.js";
import { apiJson, arr, str } from "./api-call.js";
import type { ApiEnv, ExtractBackend, SearchBackend } from "./types.js";

function post(base: string, path: string, apiKey: string, payload: unknown) {
  return {
    url: new URL(path, base.endsWith("/") ? base : `${base}/`).toString(),
    method: "POST" as const,
    headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(payload),
  };
}

export function tavilySearch(base: string, apiKey: string, env: ApiEnv): SearchBackend {
  return {
    name: "tavily",
    async search(query, limit, signal) {
      const body = await apiJson(env, "tavily", post(base, "search", apiKey, { query, max_results: limit, search_depth: "basic" }), signal);
      return arr(body, "results")
        .map((r) => ({ title: str(r, "title"), url: str(r, "url"), description: str(r, "content") }))
        .filter((h) => h.url)
        .slice(0, limit);
    },
  };
}

export function tavilyExtract(base: string, apiKey: string, env: ApiEnv, policy: AddressPolicy): ExtractBackend {
  return {
    name: "tavily",
    async extract(url, signal) {
      await assertAllowedHost(checkUrlShape(url, policy), policy);
      const body = await apiJson(env, "tavily", post(base, "extract", apiKey, { urls: [url], format: "markdown" }), signal);
      const hit = arr(body, "results")[0];
      if (!hit) {
        const failed = arr(body, "failed_results")[0];
        throw new WebError("HGW_ERR_WEB_FETCH", `${url}: ${str(failed, "error") || "tavily could not extract it"}`);
      }
      return { url: str(hit, "url") || url, title: str(hit, "title"), content: str(hit, "raw_content").trim() };
    },
  };
}
