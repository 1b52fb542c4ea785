/**
 * session_search: full-text search over past conversations through
 * ctx.sessions (the store implements SessionSearcher). Ranked hits with the
 * session, title, time, role and a snippet, paginated with offset/limit.
 */
import * as z from "zod";
import type { SessionSearchHit, SessionSearchQuery, ToolContext, ToolDefinition } from "../../agent/types.js";
import { aborted, capText, fail, ok, parseArgs, toolSchema } from "../files/shared.js";
import { parseBound, toIso } from "./time-range.js";

const MAX_SNIPPET = 400;

const Args = z.object({
  query: z.string().trim().min(1).describe("Keywords to find (all must appear); put an exact phrase in double quotes."),
  role: z.enum(["user", "assistant", "tool", "system"]).optional().describe("Only messages from this role."),
  platform: z.string().min(1).optional().describe("Only sessions from this platform: cli, telegram, discord, slack, api."),
  since: z.string().min(1).optional().describe("Only messages at or after this time: ISO date (2025-03-01), ISO date-time, or relative age (30m, 12h, 7d, 2w)."),
  until: z.string().min(1).optional().describe("Only messages at or before this time (same formats as since; a date includes the whole day)."),
  limit: z.number().int().min(1).max(50).default(10).describe("Results per page (default 10, max 50)."),
  offset: z.number().int().min(0).default(0).describe("Results to skip, for the next page (default 0)."),
});
type SearchArgs = z.output<typeof Args>;

const DESCRIPTION =
  "Search past conversations (every stored session, all platforms) by keywords. Use it to recall earlier work, decisions, " +
  "or facts the user told you in a previous session instead of asking again, and for anything too transient for memory. " +
  "Filter by role, platform and time (since/until accept ISO dates or relative ages like 7d). " +
  "Results are ranked by relevance, each with session id, title, time, role and a snippet; page with offset/next_offset.";

export function createSessionSearchTool(): ToolDefinition {
  return {
    name: "session_search",
    toolset: "session_search",
    schema: toolSchema("session_search", DESCRIPTION, Args),
    parallelSafe: true,
    readOnly: true,
    maxResultChars: 60_000,
    execute: async (raw, ctx, signal) => {
      const parsed = parseArgs(Args, raw);
      if (!parsed.ok) return fail(parsed.error);
      if (signal.aborted) return aborted();
      const q = buildQuery(parsed.value, ctx.clock.now());
      if (typeof q === "string") return fail(q);
      let hits: readonly SessionSearchHit[];
      try {
        hits = ctx.sessions.search(q);
      } catch (err) {
        return fail(`Session search failed: ${err instanceof Error ? err.message : String(err)}. Try simpler keywords.`);
      }
      return formatResults(parsed.value, hits, ctx);
    },
  };
}

/** The store query (asking one extra hit to learn whether another page exists), or an error sentence. */
function buildQuery(args: SearchArgs, now: number): SessionSearchQuery | string {
  const since = args.since === undefined ? undefined : parseBound(args.since, now, "since");
  const until = args.until === undefined ? undefined : parseBound(args.until, now, "until");
  if (since && !since.ok) return since.error;
  if (until && !until.ok) return until.error;
  if (since?.ok && until?.ok && since.ms > until.ms) return `since (${toIso(since.ms)}) is after until (${toIso(until.ms)}).`;
  return {
    query: args.query,
    ...(args.role ? { role: args.role } : {}),
    ...(args.platform ? { platform: args.platform } : {}),
    // The searcher works in epoch seconds (the store's unit); bounds are parsed in milliseconds.
    ...(since?.ok ? { since: since.ms / 1000 } : {}),
    ...(until?.ok ? { until: until.ms / 1000 } : {}),
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
    query: args.query,
    results,
    count: results.length,
    offset: args.offset,
    has_more: hasMore,
    ...(hasMore ? { next_offset: args.offset + results.length } : {}),
    ...(results.length === 0 ? { note: args.offset > 0 ? "No more results past this offset." : "No past messages matched. Try fewer or different keywords, or widen the filters." } : {}),
  });
}
