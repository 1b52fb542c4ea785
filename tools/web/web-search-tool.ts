/** `web_search`: a query → titles, URLs and snippets from the configured backend. */
import type { ArgsOf, ToolDefinition } from "../../agent/types.js";
import { defineTool } from "../common/define-tool.js";
import type { SearchBackend } from "./backends/types.js";
import { webErrorIn } from "./web-error.js";

/** The parameters, stating the configured default limit. */
function parameters(defaultLimit: number) {
  return {
    type: "object",
    properties: {
      query: { type: "string", minLength: 1, description: "What to search for." },
      limit: { type: "integer", minimum: 1, maximum: 20, description: `How many results (default ${defaultLimit}).` },
    },
    required: ["query"],
    additionalProperties: false,
  } as const;
}
export type WebSearchArgs = ArgsOf<ReturnType<typeof parameters>>;

export function createWebSearchTool(backend: SearchBackend, defaultLimit: number): ToolDefinition<WebSearchArgs> {
  return defineTool({
    name: "web_search",
    toolset: "web",
    description:
      "Search the web. Returns titles, URLs and short descriptions only; read a page with web_extract. " +
      "Use for current information, documentation, or anything you are not sure of.",
    parameters: parameters(defaultLimit),
    parallelSafe: true,
    readOnly: true,
    async execute(args, _ctx, signal) {
      try {
        const hits = await backend.search(args.query.trim(), args.limit ?? defaultLimit, signal);
        const web = hits.map((h, i) => ({ position: i + 1, title: h.title, url: h.url, description: h.description }));
        return JSON.stringify({ success: true, backend: backend.name, data: { web } });
      } catch (err) {
        if (signal.aborted) return JSON.stringify({ aborted: true });
        return JSON.stringify({ success: false, backend: backend.name, error: webErrorIn(err)?.message ?? String(err) });
      }
    },
  });
}
