/**
 * The pluggable halves of the web tools: a search backend turns a query into
 * hits, an extract backend turns a URL into readable text. Both reject with a
 * WebError whose message the model can act on.
 */
import type { Dispatcher } from "undici";

export interface SearchHit {
  readonly title: string;
  readonly url: string;
  readonly description: string;
}

export interface SearchBackend {
  readonly name: string;
  search(query: string, limit: number, signal: AbortSignal): Promise<readonly SearchHit[]>;
}

export interface ExtractedPage {
  /** Where the content came from (after redirects). */
  readonly url: string;
  readonly title: string;
  /** Markdown or plain text. */
  readonly content: string;
  /** The body was cut at web.max_page_bytes. */
  readonly truncated?: boolean;
}

export interface ExtractBackend {
  readonly name: string;
  extract(url: string, signal: AbortSignal): Promise<ExtractedPage>;
}

/** What every API backend needs: the dispatcher for operator-configured URLs and the request limits. */
export interface ApiEnv {
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  readonly userAgent: string;
}

/** Search APIs answer in small JSON documents; more than this is not a search result. */
export const MAX_API_BYTES = 4 * 1024 * 1024;
