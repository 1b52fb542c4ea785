/**
 * The request changes the failover wrapper makes when a provider rejected one
 * feature of a request (the classifier names it in `ClassifiedError.repair`).
 * Each is applied once, to the request of that call only: history is never
 * rewritten. Pure functions; inputs are not mutated.
 */
import type { ContentPart, Message, ModelRequest, RequestRepair, ToolSchema } from "../types.js";

export const IMAGE_REMOVED = "[image removed: the provider rejected it]";

export function applyRepair(request: ModelRequest, repair: RequestRepair): ModelRequest {
  switch (repair) {
    case "strip_reasoning":
      return { ...request, messages: stripReplayedReasoning(request.messages) };
    case "strip_images":
      return { ...request, messages: request.messages.map(withoutImages) };
    case "strip_schema_patterns":
      return { ...request, tools: request.tools.map(withoutPatterns) };
    case "drop_long_context_beta":
      return { ...request, withoutLongContextBeta: true };
    case "enable_reasoning": {
      // "Reasoning is mandatory": stop asking for it to be off; the provider's default applies.
      if (request.reasoningEffort !== "none") return request;
      const { reasoningEffort: _off, ...rest } = request;
      return rest;
    }
  }
}

/** Drops replayable reasoning (signatures, encrypted items): the provider rejected it. */
export function stripReplayedReasoning(messages: readonly Message[]): Message[] {
  return messages.map((m) => {
    if (m.role !== "assistant" || (m.reasoning_details === undefined && m.codex_reasoning_items === undefined)) return m;
    const { reasoning_details: _d, codex_reasoning_items: _c, ...rest } = m;
    return rest;
  });
}

function withoutImages(m: Message): Message {
  if (m.role !== "user" || typeof m.content === "string" || !m.content.some((p) => p.type === "image_url")) return m;
  const parts: ContentPart[] = m.content.map((p) => (p.type === "image_url" ? { type: "text", text: IMAGE_REMOVED } : p));
  return { ...m, content: parts };
}

function withoutPatterns(t: ToolSchema): ToolSchema {
  return { ...t, parameters: stripSchemaKeywords(t.parameters) as Record<string, unknown> };
}

/** Keys whose value is a map of name → schema (a property named "pattern" must survive). */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keys whose value is one schema or a list of them. */
const SCHEMA_NODES = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "anyOf",
  "oneOf",
  "allOf",
  "prefixItems",
  "propertyNames",
  "additionalItems",
  "unevaluatedProperties",
  "unevaluatedItems",
]);
const DROPPED = new Set(["pattern", "format"]);

/** Removes `pattern` and `format` from every schema node, recursively. */
export function stripSchemaKeywords(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripSchemaKeywords);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (DROPPED.has(key) && typeof value === "string") continue;
    if (SCHEMA_MAPS.has(key) && value && typeof value === "object" && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, stripSchemaKeywords(schema)]));
    } else out[key] = SCHEMA_NODES.has(key) ? stripSchemaKeywords(value) : value;
  }
  return out;
}
