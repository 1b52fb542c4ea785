/**
 * Turns whatever an SDK threw into plain `ErrorFacts` for the classifier.
 * Works on the openai and @anthropic-ai/sdk error classes by shape (both carry
 * `status`, `headers` and `error`), and on undici/Node transport errors by
 * walking the `cause` chain for class names and errno codes.
 */
import type { ErrorFacts } from "./classify.js";

export interface FactContext {
  readonly nowMs: number;
  readonly abortCause?: ErrorFacts["abortCause"];
  readonly approxTokens?: number;
  readonly contextLength?: number;
}

export function factsFromError(err: unknown, ctx: FactContext): ErrorFacts {
  const chain = causeChain(err);
  const top = chain[0];
  const status = numberField(top, "status");
  const headers = headerRecord(field(top, "headers"));
  const body = field(top, "error");
  const messages = chain.map((e) => (e instanceof Error ? e.message : typeof e === "string" ? e : "")).filter(Boolean);
  const errorType = chain.map((e) => (e instanceof Error ? `${e.constructor.name} ${e.name}` : "")).join(" ").trim();
  const code = chain.map((e) => field(e, "code")).filter((c): c is string => typeof c === "string").join(" ");
  return {
    message: dedupe(messages).join(": ") || String(err),
    nowMs: ctx.nowMs,
    ...(status !== undefined ? { status } : {}),
    ...(headers ? { headers } : {}),
    ...(body !== undefined && body !== null ? { body } : {}),
    ...(errorType ? { errorType } : {}),
    ...(code ? { code } : {}),
    ...(ctx.abortCause ? { abortCause: ctx.abortCause } : {}),
    ...(ctx.approxTokens !== undefined ? { approxTokens: ctx.approxTokens } : {}),
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

function numberField(node: unknown, name: string): number | undefined {
  const v = field(node, name);
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function dedupe(items: string[]): string[] {
  return items.filter((m, i) => items.indexOf(m) === i);
}
