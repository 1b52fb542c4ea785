/** Brave Search's web search API (key in `X-Subscription-Token`). */
import { apiJson, arr, plain, str } from "./api-call.js";
import type { ApiEnv, SearchBackend } from "./types.js";

export function braveBackend(endpoint: string, apiKey: string, env: ApiEnv): SearchBackend {
  return {
    name: "brave",
    async search(query, limit, signal) {
      const url = new URL(endpoint);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(limit));
      const body = await apiJson(env, "brave", { url: url.toString(), headers: { accept: "application/json", "x-subscription-token": apiKey } }, signal);
      return arr(body, "web", "results")
        .map((r) => ({ title: plain(str(r, "title")), url: str(r, "url"), description: plain(str(r, "description")) }))
        .filter((h) => h.url)
        .slice(0, limit);
    },
  };
}
