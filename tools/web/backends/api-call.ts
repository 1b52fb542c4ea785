/**
 * One call to a search API with the backends' shared error handling: a
 * deadline, a body cap, and a non-2xx status or unparsable body turned into
 * WebError(HGW_ERR_WEB_SEARCH) naming the backend and what it said.
 */
import { linkedSignal } from "../../../config/linked-signal.js";
import { type HttpCall, httpCall } from "../http.js";
import { decodeBody } from "../readable.js";
import { WebError, webErrorIn } from "../web-error.js";
import { type ApiEnv, MAX_API_BYTES } from "./types.js";

/** Hints for statuses that have a usual cause. */
const STATUS_HINTS: Readonly<Record<number, string>> = {
  401: "the API key was rejected",
  403: "access was refused",
  429: "rate limited; try again later",
};

export async function apiText(env: ApiEnv, backend: string, call: HttpCall, signal: AbortSignal): Promise<string> {
  const deadline = linkedSignal([signal], env.timeoutMs);
  let res: Awaited<ReturnType<typeof httpCall>>;
  try {
    res = await httpCall(env.dispatcher, { ...call, headers: { "user-agent": env.userAgent, ...call.headers } }, MAX_API_BYTES, deadline.signal);
  } catch (err) {
    throw new WebError("HGW_ERR_WEB_SEARCH", `${backend}: ${webErrorIn(err)?.detail ?? String(err)}`);
  } finally {
    deadline.dispose();
  }
  const text = decodeBody(res.body, res.contentType);
  if (res.status < 200 || res.status >= 300) {
    const hint = STATUS_HINTS[res.status] ? ` (${STATUS_HINTS[res.status]})` : "";
    throw new WebError("HGW_ERR_WEB_SEARCH", `${backend} answered HTTP ${res.status}${hint}: ${text.replace(/\s+/g, " ").slice(0, 200)}`);
  }
  return text;
}

export async function apiJson(env: ApiEnv, backend: string, call: HttpCall, signal: AbortSignal): Promise<unknown> {
  const text = await apiText(env, backend, call, signal);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WebError("HGW_ERR_WEB_SEARCH", `${backend} did not answer with JSON: ${text.replace(/\s+/g, " ").slice(0, 200)}`);
  }
}

/** The string at `obj[key]`, else "". */
export function str(obj: unknown, key: string): string {
  const v = (obj as Record<string, unknown> | null)?.[key];
  return typeof v === "string" ? v : "";
}

/** The array at a path of keys, else []. */
export function arr(obj: unknown, ...path: string[]): unknown[] {
  let v: unknown = obj;
  for (const k of path) v = (v as Record<string, unknown> | null)?.[k];
  return Array.isArray(v) ? v : [];
}

/** Text with HTML tags and entities removed (API snippets carry <strong> highlights). */
export function plain(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", apos: "'", nbsp: " " })[e] ?? "")
    .replace(/\s+/g, " ")
    .trim();
}
