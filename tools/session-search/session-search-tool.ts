/**
 * session_search: full-text search over past conversations through
 * ctx.sessions (the store implements SessionSearcher). Ranked hits with the
 * session, title, time, role and a snippet, paginated with offset/limit.
 */
import type { ArgsOf, SessionSearchHit, SessionSearchQuery, ToolContext, ToolDefinition } from "../../agent/types.js";
import { defineTool } from "../common/define-tool.js";
import { aborted, capText, fail, ok } from "../files/shared.js";
import { parseBound, toIso } from "./time-range.js";

const MAX_SNIPPET = 400;

const PARAMETERS = {
  type: "object",
  properties: {
    query: { type: "string", minLength: 1, description: "Keywords to find (all must appear); put an exact phrase in double quotes." },
    role: { type: "string", enum: ["user", "assistant", "tool", "system"], description: "Only messages from this role." },
    platform: { type: "string", minLength: 1, description: "Only sessions from this platform: cli, telegram, discord, slack, api." },
    since: {
      type: "string",
      minLength: 1,
      description: "Only messages at or after this time: ISO date (2025-03-01), ISO date-time, or relative age (30m, 12h, 7d, 2w).",
    },
    until: { type: "string", minLength: 1, description: "Only messages at or before this time (same formats as since; a date includes the whole day)." },
    limit: { type: "integer", minimum: 1, maximum: 50, default: 10, description: "Results per page (default 10, max 50)." },
    offset: { type: "integer", minimum: 0, default: 0, description: "Results to skip, for the next page (default 0)." },
  },
  required: ["query"],
} as const;
type SearchArgs = ArgsOf<typeof PARAMETERS>;

const DESCRIPTION =
  "Search past conversations (every stored session, all platforms) by keywords. Use it to recall earlier work, decisions, " +
  "or facts the user told you in a previous session instead of asking again, and for anything too transient for memory. " +
  "Filter by role, platform and time (since/until accept ISO dates or relative ages like 7d). " +
  "Results are ranked by relevance, each with session id, title, time, role and a snippet; page with offset/next_offset.";

export function createSessionSearchTool(): ToolDefinition<SearchArgs> {
  return defineTool({
    name: "session_search",
    toolset: "session_search",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: true,
    readOnly: true,
    maxResultChars: 60_000,
    execute: async (args, ctx, signal) => {
      if (signal.aborted) return aborted();
      const q = buildQuery(args, ctx.clock.now());
      if (typeof q === "string") return fail(q);
      let hits: readonly SessionSearchHit[];
      try {
        hits = ctx.sessions.search(q);
      } catch (err) {
        return fail(`Session search failed: ${err instanceof Error ? err.message : String(err)}. Try simpler keywords.`);
      }
      return formatResults(args, hits, ctx);
    },
  });
}

/** The store query (asking one extra hit to learn whether another page exists), or an error sentence. */
function buildQuery(args: SearchArgs, now: number): SessionSearchQuery | string {
  const query = args.query.trim();
  if (!query) return "query must contain at least one keyword.";
  const since = args.since === undefined ? undefined : parseBound(args.since, now, "since");
  const until = args.until === undefined ? undefined : parseBound(args.until, now, "until");
  if (since && !since.ok) return since.error;
  if (until && !until.ok) return until.error;
  if (since?.ok && until?.ok && since.ms > until.ms) return `since (${toIso(since.ms)}) is after until (${toIso(until.ms)}).`;
  return {
    query,
    ...(args.role ? { role: args.role } : {}),
    ...(args.platform ? { platform: args.platform } : {}),
    ...(since?.ok ? { since: since.ms } : {}),
    ...(until?.ok ? { until: until.ms } : {}),
    limit: args.limit + 1,
    offset: args.offset,
  };
}

function formatResults(args: SearchArgs, hits: readonly SessionSearchHit[], ctx: ToolContext): string {
  const page = hits.slice(0, args.limit);
  const hasMore = hits.length > args.limit;
  const results = page.map((h) => ({
    session_id: h.sessionId,
    title: h.title,
    time: toIso(h.timestamp),
    role: h.role,
    platform: h.platform,
    snippet: capText(h.snippet, MAX_SNIPPET),
    message_id: h.messageId,
    ...(h.sessionId === ctx.sessionId ? { this_session: true } : {}),
  }));
  return ok({
    query: args.query.trim(),
    results,
    count: results.length,
    offset: args.offset,
    has_more: hasMore,
    ...(hasMore ? { next_offset: args.offset + results.length } : {}),
    ...(results.length === 0
      ? { note: args.offset > 0 ? "No more results past this offset." : "No past messages matched. Try fewer or different keywords, or widen the filters." }
      : {}),
  });
}
