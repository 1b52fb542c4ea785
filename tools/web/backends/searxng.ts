/**
 * A SearXNG instance's JSON API (`/search?q=…&format=json`). The instance must
 * allow the json format (`search.formats` in its settings.yml); a 403 says it
 * does not.
 */
import { WebError } from "../web-error.js";
import { apiJson, arr, plain, str } from "./api-call.js";
import type { ApiEnv, SearchBackend } from "./types.js";

export function searxngBackend(base: string, env: ApiEnv): SearchBackend {
  const endpoint = new URL("search", base.endsWith("/") ? base : `${base}/`);
  return {
    name: "searxng",
    async search(query, limit, signal) {
      const url = new URL(endpoint);
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      const body = await apiJson(env, "searxng", { url: url.toString(), headers: { accept: "application/json" } }, signal).catch((err: unknown) => {
        if (err instanceof WebError && /HTTP 403/.test(err.detail)) {
          throw new WebError("HGW_ERR_WEB_SEARCH", "searxng refused format=json: enable it under search.formats in the instance's settings.yml");
        }
        throw err;
      });
      return arr(body, "results")
        .map((r) => ({ title: plain(str(r, "title")), url: str(r, "url"), description: plain(str(r, "content")) }))
        .filter((h) => h.url)
        .slice(0, limit);
    },
  };
}
