/**
 * Bounded HTTP for the web tools (undici): every request has a deadline
 * linked to the caller's signal and a body cap, and page fetches follow
 * redirects by hand so each hop's URL is checked again before it is
 * requested. Search APIs use a dispatcher without the address guard (their
 * URLs come from the operator's config and may well be on the LAN); pages
 * use one whose DNS lookup refuses non-public addresses.
 */
import { Agent, type Dispatcher, request } from "undici";
import { linkedSignal } from "../../config/linked-signal.js";
import { type AddressPolicy, checkUrlShape, guardedLookup } from "./address-guard.js";
import { describeFailure, WebError } from "./web-error.js";

export interface HttpCall {
  readonly url: string;
  readonly method?: "GET" | "POST";
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface HttpResult {
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  /** Where a redirect points (absolute or relative), else null. */
  readonly location: string | null;
  readonly body: Buffer;
  /** The body was longer than the cap and was cut there. */
  readonly truncated: boolean;
}

export interface PageLimits {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly policy: AddressPolicy;
  readonly userAgent: string;
}

/** The two dispatchers the web tools use; `close()` releases their connections. */
export interface WebDispatchers {
  readonly pages: Dispatcher;
  readonly apis: Dispatcher;
  close(): Promise<void>;
}

const KEEP_ALIVE_MS = 4000;

export function createDispatchers(policy: AddressPolicy): WebDispatchers {
  const pages = new Agent({ keepAliveTimeout: KEEP_ALIVE_MS, ...(policy.allowAll ? {} : { connect: { lookup: guardedLookup(policy) } }) });
  const apis = new Agent({ keepAliveTimeout: KEEP_ALIVE_MS });
  return { pages, apis, close: async () => void (await Promise.all([pages.close(), apis.close()])) };
}

/** One request, no redirects followed; rejects with a WebError. */
export async function httpCall(dispatcher: Dispatcher, call: HttpCall, maxBytes: number, signal: AbortSignal): Promise<HttpResult> {
  try {
    const res = await request(call.url, { dispatcher, method: call.method ?? "GET", headers: { ...call.headers }, body: call.body ?? null, signal });
    const location = res.statusCode >= 300 && res.statusCode < 400 ? headerText(res.headers["location"]) || null : null;
    const contentType = headerText(res.headers["content-type"]);
    if (location !== null) {
      await res.body.dump();
      return { url: call.url, status: res.statusCode, contentType, location, body: Buffer.alloc(0), truncated: false };
    }
    const { body, truncated } = await readCapped(res.body, maxBytes);
    return { url: call.url, status: res.statusCode, contentType, location, body, truncated };
  } catch (err) {
    throw describeFailure(err, new URL(call.url).host);
  }
}

/** A GET that follows up to `maxRedirects` redirects, checking every URL, within one deadline. */
export async function fetchPage(dispatcher: Dispatcher, url: string, limits: PageLimits, signal: AbortSignal): Promise<HttpResult> {
  const deadline = linkedSignal([signal], limits.timeoutMs);
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      checkUrlShape(current, limits.policy);
      const headers = { "user-agent": limits.userAgent, accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5" };
      const res = await httpCall(dispatcher, { url: current, headers }, limits.maxBytes, deadline.signal);
      if (res.location === null) return res;
      if (hop >= limits.maxRedirects) throw new WebError("HGW_ERR_WEB_FETCH", `${url}: more than ${limits.maxRedirects} redirects`);
      current = new URL(res.location, current).toString();
    }
  } finally {
    deadline.dispose();
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = maxBytes - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      body.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
}
