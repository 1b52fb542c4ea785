/** Extraction on this host: an SSRF-guarded fetch, then Readability and turndown. */
import type { Dispatcher } from "undici";
import { fetchPage, type PageLimits } from "../http.js";
import { readablePage } from "../readable.js";
import { WebError } from "../web-error.js";
import type { ExtractBackend } from "./types.js";

export function directExtract(dispatcher: Dispatcher, limits: PageLimits): ExtractBackend {
  return {
    name: "direct",
    async extract(url, signal) {
      const res = await fetchPage(dispatcher, url, limits, signal);
      if (res.status < 200 || res.status >= 300) throw new WebError("HGW_ERR_WEB_FETCH", `${res.url} answered HTTP ${res.status}`);
      const page = readablePage(res.body, res.contentType, res.url);
      return { url: res.url, title: page.title, content: page.content, ...(res.truncated ? { truncated: true } : {}) };
    },
  };
}
