/**
 * MCP call results and failures → the tool-result JSON string the model reads
 * (`{success, result|error, ...}`, the same shape the core tools use). Runs in
 * the worker, so a multi-megabyte image never crosses into the main thread.
 * Pure functions.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/** The parts of a CallToolResult we read; anything else is ignored. */
export interface CallResultLike {
  readonly content?: readonly unknown[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/** Room kept for the JSON envelope and the truncation note. */
const ENVELOPE_CHARS = 200;

function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function field(part: Record<string, unknown>, key: string): string | undefined {
  const v = part[key];
  return typeof v === "string" ? v : undefined;
}

/** One content part as text: text verbatim, binaries as a short description with mime type and size. */
export function describePart(raw: unknown): string {
  if (typeof raw !== "object" || raw === null) return "";
  const part = raw as Record<string, unknown>;
  switch (part["type"]) {
    case "text":
      return field(part, "text") ?? "";
    case "image":
    case "audio":
      return `[${String(part["type"])}: ${field(part, "mimeType") ?? "unknown type"}, ${base64Bytes(part["data"])} bytes]`;
    case "resource": {
      const res = (part["resource"] ?? {}) as Record<string, unknown>;
      const uri = field(res, "uri") ?? "?";
      const text = field(res, "text");
      if (text !== undefined) return `[resource ${uri}]\n${text}`;
      return `[resource ${uri}: ${field(res, "mimeType") ?? "unknown type"}, ${base64Bytes(res["blob"])} bytes]`;
    }
    case "resource_link": {
      const name = field(part, "name");
      return `[resource link: ${field(part, "uri") ?? "?"}${name ? ` (${name})` : ""}]`;
    }
    default:
      return `[${String(part["type"] ?? "unknown")} content]`;
  }
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = Math.max(0, max);
  return `${text.slice(0, cut)}\n…[truncated ${text.length - cut} characters]`;
}

/** A server's CallToolResult as the tool-result string, capped at `maxChars`. */
export function mapCallResult(result: CallResultLike, maxChars: number): string {
  const parts = Array.isArray(result.content) ? result.content : [];
  const text = parts
    .map(describePart)
    .filter((s) => s.length > 0)
    .join("\n");
  const extra: Record<string, unknown> = {};
  let budget = maxChars - ENVELOPE_CHARS;
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    if (json.length <= budget / 2) {
      extra["structuredContent"] = result.structuredContent;
      budget -= json.length;
    } else {
      extra["structuredContentOmitted"] = `${json.length} characters, over the result size cap`;
    }
  }
  if (result.isError === true) {
    const error = truncate(text || "The MCP tool reported an error without a message.", budget);
    return JSON.stringify({ success: false, error, ...extra });
  }
  return JSON.stringify({ success: true, result: truncate(text, budget), ...extra });
}

export interface CallFailureContext {
  readonly server: string;
  readonly tool: string;
  readonly timeoutMs: number;
  /** True when our caller cancelled (the turn was aborted). */
  readonly cancelled: boolean;
}

/** A call that rejected (protocol error, timeout, cancellation, lost connection) as an error result. */
export function mapCallFailure(err: unknown, ctx: CallFailureContext): string {
  const where = `MCP tool "${ctx.tool}" on server "${ctx.server}"`;
  if (ctx.cancelled) return JSON.stringify({ success: false, error: `${where} was cancelled.`, aborted: true });
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof McpError) {
    switch (err.code) {
      case ErrorCode.InvalidParams:
        return JSON.stringify({ success: false, error: `${where} rejected its arguments: ${message}` });
      case ErrorCode.RequestTimeout:
        return JSON.stringify({ success: false, error: `${where} timed out after ${Math.round(ctx.timeoutMs / 1000)} s.` });
      case ErrorCode.ConnectionClosed:
        return JSON.stringify({
          success: false,
          error: `${where} failed: the server closed the connection during the call (it may have crashed). It will be restarted.`,
        });
      default:
        break;
    }
  }
  return JSON.stringify({ success: false, error: `${where} failed: ${message}` });
}
