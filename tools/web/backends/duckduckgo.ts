/**
 * DuckDuckGo's HTML endpoint: no key, no account. The form is POSTed as a
 * browser would, and the result list is read from the page (`.result` blocks
 * with a `.result__a` title link and a `.result__snippet`); ads are skipped
 * and DuckDuckGo's `/l/?uddg=` redirect links are unwrapped. An empty page
 * usually means DuckDuckGo is rate-limiting this host.
 */
import { parseHTML } from "linkedom";
import { WebError } from "../web-error.js";
import { apiText } from "./api-call.js";
import type { ApiEnv, SearchBackend, SearchHit } from "./types.js";

export function duckDuckGoBackend(url: string, env: ApiEnv): SearchBackend {
  return {
    name: "duckduckgo",
    async search(query, limit, signal) {
      const html = await apiText(
        env,
        "duckduckgo",
        {
          url,
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
          body: new URLSearchParams({ q: query, b: "" }).toString(),
        },
        signal,
      );
      const hits = parseResults(html, url).slice(0, limit);
      if (hits.length === 0 && !/no\s+results/i.test(html)) {
        throw new WebError(
          "HGW_ERR_WEB_SEARCH",
          "duckduckgo returned a page without results (it may be rate-limiting this host); try again later or configure another web.search_backend",
        );
      }
      return hits;
    },
  };
}

export function parseResults(html: string, base: string): SearchHit[] {
  const { document } = parseHTML(html);
  const hits: SearchHit[] = [];
  for (const block of [...document.querySelectorAll(".result")]) {
    if (block.classList.contains("result--ad")) continue;
    const link = block.querySelector("a.result__a");
    const href = link?.getAttribute("href");
    if (!link || !href) continue;
    const target = unwrap(href, base);
    if (!target) continue;
    const description = block.querySelector(".result__snippet")?.textContent ?? "";
    hits.push({ title: tidy(link.textContent ?? ""), url: target, description: tidy(description) });
  }
  return hits;
}

/** `//duckduckgo.com/l/?uddg=<target>&rut=…` → the target; other links as absolute URLs. */
function unwrap(href: string, base: string): string | null {
  try {
    const url = new URL(href, base);
    const inner = url.pathname === "/l/" ? url.searchParams.get("uddg") : null;
    const target = new URL(inner ?? url.toString());
    return target.protocol === "http:" || target.protocol === "https:" ? target.toString() : null;
  } catch {
    return null;
  }
}

function tidy(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
