/**
 * Turns whatever an SDK threw into plain `ErrorFacts` for the classifier.
 * Works on the openai and @anthropic-ai/sdk error classes by shape (both carry
 * `status`, `headers` and `error`), and on undici/Node transport errors by
 * walking the `cause` chain for class names and errno codes.
 */
import type { ErrorFacts } from "./classify.js";

export type FactContext = Pick<ErrorFacts, "nowMs" | "abortCause" | "provider" | "approxTokens" | "numMessages" | "contextLength">;

export function factsFromError(err: unknown, ctx: FactContext): ErrorFacts {
  const chain = causeChain(err);
  // The SDK error may wrap the one that carries the response (a retry helper, a stream wrapper): take the first found.
  const status = chain.map((e) => httpStatus(e)).find((s) => s !== undefined);
  const headers = chain.map((e) => headerRecord(field(e, "headers"))).find(Boolean);
  const body = chain.map((e) => field(e, "error")).find((b) => b !== undefined && b !== null);
  const messages = chain.map((e) => (e instanceof Error ? e.message : typeof e === "string" ? e : "")).filter(Boolean);
  const errorType = chain
    .map((e) => (e instanceof Error ? `${e.constructor.name} ${e.name}` : ""))
    .join(" ")
    .trim();
  const code = chain
    .map((e) => field(e, "code"))
    .filter((c): c is string => typeof c === "string")
    .join(" ");
  return {
    message: dedupe(messages).join(": ") || String(err),
    nowMs: ctx.nowMs,
    ...(status !== undefined ? { status } : {}),
    ...(headers ? { headers } : {}),
    ...(body !== undefined && body !== null ? { body } : {}),
    ...(errorType ? { errorType } : {}),
    ...(code ? { code } : {}),
    ...(ctx.abortCause ? { abortCause: ctx.abortCause } : {}),
    ...(ctx.provider ? { provider: ctx.provider } : {}),
    ...(ctx.approxTokens !== undefined ? { approxTokens: ctx.approxTokens } : {}),
    ...(ctx.numMessages !== undefined ? { numMessages: ctx.numMessages } : {}),
    ...(ctx.contextLength !== undefined ? { contextLength: ctx.contextLength } : {}),
  };
}

function causeChain(err: unknown): unknown[] {
  const out: unknown[] = [];
  let cur: unknown = err;
  while (cur !== undefined && cur !== null && out.length < 6 && !out.includes(cur)) {
    out.push(cur);
    cur = field(cur, "cause");
  }
  return out;
}

function headerRecord(h: unknown): Record<string, string> | undefined {
  if (!h || typeof h !== "object") return undefined;
  if (typeof (h as Headers).forEach === "function" && typeof (h as Headers).get === "function") {
    const out: Record<string, string> = {};
    (h as Headers).forEach((value, key) => {
      out[key.toLowerCase()] = value;
    });
    return out;
  }
  return Object.fromEntries(Object.entries(h as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

function field(node: unknown, name: string): unknown {
  return node && typeof node === "object" ? (node as Record<string, unknown>)[name] : undefined;
}

/** `status` (or `status_code`, `statusCode`) when it is an HTTP status. */
function httpStatus(node: unknown): number | undefined {
  for (const name of ["status", "status_code", "statusCode"]) {
    const v = field(node, name);
    if (typeof v === "number" && Number.isInteger(v) && v >= 100 && v < 600) return v;
  }
  return undefined;
}

function dedupe(items: string[]): string[] {
  return items.filter((m, i) => items.indexOf(m) === i);
}
