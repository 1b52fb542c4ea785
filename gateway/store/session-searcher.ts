/**
 * The store as the agent's `SessionSearcher` (what the session_search tool
 * receives through its ToolContext).
 */
import type { SessionSearcher, SessionSearchHit, SessionSearchQuery } from "../../agent/types.js";
import type { MessageSearch } from "./search/message-search.js";

export function createSessionSearcher(search: Pick<MessageSearch, "search">): SessionSearcher {
  return {
    search(q: SessionSearchQuery): readonly SessionSearchHit[] {
      const hits = search.search({
        query: q.query,
        ...(q.role !== undefined ? { role: q.role } : {}),
        ...(q.platform !== undefined ? { source: q.platform } : {}),
        ...(q.since !== undefined ? { since: q.since } : {}),
        ...(q.until !== undefined ? { until: q.until } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
        ...(q.offset !== undefined ? { offset: q.offset } : {}),
      });
      return hits.map((h) => ({
        sessionId: h.sessionId,
        messageId: h.messageId,
        role: h.role,
        platform: h.source,
        timestamp: h.timestamp,
        snippet: h.snippet,
        title: h.title,
      }));
    },
  };
}
