/**
 * Sessions: creation, ending, titles, usage counters and compression lineage.
 */
import { randomUUID } from "node:crypto";
import type { Statement } from "better-sqlite3";
import { HermesError } from "../../config/errors.js";
import type { StoreDb } from "./db.js";
import { fromColumn, fromColumnOrNull, toColumn } from "./epoch.js";
import type { NewSession, SessionListItem, SessionRecord, UsageDelta } from "./types.js";

interface SessionRow {
  id: string;
  source: string;
  user_id: string | null;
  model: string | null;
  model_config: string | null;
  system_prompt: string | null;
  parent_session_id: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  title: string | null;
  message_count: number | null;
  tool_call_count: number | null;
  api_call_count: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  estimated_cost_usd: number | null;
  actual_cost_usd: number | null;
  billing_provider: string | null;
  billing_base_url: string | null;
  billing_mode: string | null;
  cost_status: string | null;
  cost_source: string | null;
  pricing_version: string | null;
  preview?: string | null;
}

const MAX_TITLE = 100;

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text; // written by something else: hand back the raw text rather than lose it
  }
}

export function rowToSession(r: SessionRow): SessionRecord {
  return {
    id: r.id,
    source: r.source,
    userId: r.user_id,
    model: r.model,
    modelConfig: parseJson(r.model_config),
    systemPrompt: r.system_prompt,
    parentSessionId: r.parent_session_id,
    startedAt: fromColumn(r.started_at),
    endedAt: fromColumnOrNull(r.ended_at),
    endReason: r.end_reason,
    title: r.title,
    messageCount: r.message_count ?? 0,
    toolCallCount: r.tool_call_count ?? 0,
    apiCallCount: r.api_call_count ?? 0,
    inputTokens: r.input_tokens ?? 0,
    outputTokens: r.output_tokens ?? 0,
    cacheReadTokens: r.cache_read_tokens ?? 0,
    cacheWriteTokens: r.cache_write_tokens ?? 0,
    reasoningTokens: r.reasoning_tokens ?? 0,
    estimatedCostUsd: r.estimated_cost_usd,
    actualCostUsd: r.actual_cost_usd,
    billingProvider: r.billing_provider,
    billingBaseUrl: r.billing_base_url,
    billingMode: r.billing_mode,
    costStatus: r.cost_status,
    costSource: r.cost_source,
    pricingVersion: r.pricing_version,
  };
}

/** Trims and collapses whitespace; empty means "no title". */
export function normalizeTitle(title: string | null): string | null {
  if (title === null) return null;
  const t = title.replace(/\s+/g, " ").trim().slice(0, MAX_TITLE);
  return t === "" ? null : t;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE";

const PREVIEW = `(SELECT substr(content, 1, 120) FROM messages WHERE session_id = s.id AND role = 'user' ORDER BY id LIMIT 1) AS preview`;

export class Sessions {
  private readonly s: Record<
    "insert" | "get" | "byTitle" | "end" | "reopen" | "title" | "model" | "usage" | "lineage" | "children" | "list" | "exists",
    Statement
  >;

  constructor(private readonly sdb: StoreDb) {
    const db = sdb.db;
    this.s = {
      insert: db.prepare(
        `INSERT INTO sessions (id, source, user_id, model, model_config, system_prompt, parent_session_id, started_at)
         VALUES (@id, @source, @userId, @model, @modelConfig, @systemPrompt, @parentSessionId, @startedAt)`,
      ),
      get: db.prepare(`SELECT * FROM sessions WHERE id = ?`),
      byTitle: db.prepare(`SELECT * FROM sessions WHERE title = ?`),
      end: db.prepare(`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL`),
      reopen: db.prepare(`UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?`),
      title: db.prepare(`UPDATE sessions SET title = ? WHERE id = ?`),
      model: db.prepare(`UPDATE sessions SET model = ? WHERE id = ?`),
      usage: db.prepare(
        `UPDATE sessions SET
           input_tokens = COALESCE(input_tokens, 0) + @input_tokens,
           output_tokens = COALESCE(output_tokens, 0) + @output_tokens,
           cache_read_tokens = COALESCE(cache_read_tokens, 0) + @cache_read_tokens,
           cache_write_tokens = COALESCE(cache_write_tokens, 0) + @cache_write_tokens,
           reasoning_tokens = COALESCE(reasoning_tokens, 0) + @reasoning_tokens,
           api_call_count = COALESCE(api_call_count, 0) + @api_calls,
           estimated_cost_usd = CASE WHEN @estimated_cost_usd IS NULL THEN estimated_cost_usd ELSE COALESCE(estimated_cost_usd, 0) + @estimated_cost_usd END,
           actual_cost_usd = CASE WHEN @actual_cost_usd IS NULL THEN actual_cost_usd ELSE COALESCE(actual_cost_usd, 0) + @actual_cost_usd END,
           billing_provider = COALESCE(@billing_provider, billing_provider),
           billing_base_url = COALESCE(@billing_base_url, billing_base_url),
           billing_mode = COALESCE(@billing_mode, billing_mode),
           cost_status = COALESCE(@cost_status, cost_status),
           cost_source = COALESCE(@cost_source, cost_source),
           pricing_version = COALESCE(@pricing_version, pricing_version)
         WHERE id = @id`,
      ),
      lineage: db.prepare(
        `WITH RECURSIVE chain(id, parent, depth) AS (
           SELECT id, parent_session_id, 0 FROM sessions WHERE id = ?
           UNION ALL
           SELECT s.id, s.parent_session_id, c.depth + 1 FROM sessions s JOIN chain c ON s.id = c.parent WHERE c.depth < 10000
         )
         SELECT s.* FROM chain c JOIN sessions s ON s.id = c.id ORDER BY c.depth DESC`,
      ),
      children: db.prepare(`SELECT * FROM sessions WHERE parent_session_id = ? ORDER BY started_at, id`),
      list: db.prepare(
        `SELECT s.*, ${PREVIEW} FROM sessions s
         WHERE (@source IS NULL OR s.source = @source) AND (@userId IS NULL OR s.user_id = @userId)
         ORDER BY s.started_at DESC, s.rowid DESC LIMIT @limit OFFSET @offset`,
      ),
      exists: db.prepare(`SELECT 1 FROM sessions WHERE id = ?`).pluck(),
    };
  }

  /** Creates a session and returns its id (a UUID unless one is given). Throws HGW_ERR_SESSION_NOT_FOUND for an unknown parent. */
  create(n: NewSession): string {
    const id = n.id ?? randomUUID();
    if (n.parentSessionId) this.mustExist(n.parentSessionId);
    this.sdb.withWrite(() =>
      this.s.insert.run({
        id,
        source: n.source,
        userId: n.userId ?? null,
        model: n.model ?? null,
        modelConfig: n.modelConfig === undefined || n.modelConfig === null ? null : JSON.stringify(n.modelConfig),
        systemPrompt: n.systemPrompt ?? null,
        parentSessionId: n.parentSessionId ?? null,
        startedAt: toColumn(n.startedAt ?? this.sdb.now()),
      }),
    );
    return id;
  }

  /** The session, or null. */
  get(id: string): SessionRecord | null {
    const r = this.s.get.get(id) as SessionRow | undefined;
    return r ? rowToSession(r) : null;
  }

  /** Exact (normalized) title match. */
  getByTitle(title: string): SessionRecord | null {
    const t = normalizeTitle(title);
    const r = t === null ? undefined : (this.s.byTitle.get(t) as SessionRow | undefined);
    return r ? rowToSession(r) : null;
  }

  /** Newest first, with message counts and a preview of the first user message. */
  list(q: { source?: string; userId?: string; limit?: number; offset?: number } = {}): SessionListItem[] {
    const rows = this.s.list.all({ source: q.source ?? null, userId: q.userId ?? null, limit: q.limit ?? 20, offset: q.offset ?? 0 }) as SessionRow[];
    return rows.map((r) => ({ ...rowToSession(r), preview: r.preview ?? null }));
  }

  /** Marks the session ended. False when it had already ended. */
  end(id: string, reason: string, at: number = this.sdb.now()): boolean {
    return this.sdb.withWrite(() => {
      if (this.s.end.run(toColumn(at), reason, id).changes > 0) return true;
      this.mustExist(id);
      return false;
    });
  }

  /** Clears ended_at/end_reason (resuming an ended session). */
  reopen(id: string): void {
    this.sdb.withWrite(() => {
      if (this.s.reopen.run(id).changes === 0) this.mustExist(id);
    });
  }

  /** Sets (or, with null/blank, clears) the title. Throws HGW_ERR_TITLE_TAKEN when another session has it. */
  setTitle(id: string, title: string | null): string | null {
    const t = normalizeTitle(title);
    this.sdb.withWrite(() => {
      try {
        if (this.s.title.run(t, id).changes === 0) this.mustExist(id);
      } catch (err) {
        if (isUniqueViolation(err)) throw new HermesError("HGW_ERR_TITLE_TAKEN", `"${t}"`, { cause: err });
        throw err;
      }
    });
    return t;
  }

  /** Sets (or with null clears) the per-session model override. Throws HGW_ERR_SESSION_NOT_FOUND. */
  setModel(id: string, model: string | null): void {
    this.sdb.withWrite(() => {
      if (this.s.model.run(model, id).changes === 0) this.mustExist(id);
    });
  }

  /** Adds token/cost counters; text billing fields replace the stored ones when given. */
  addUsage(id: string, u: UsageDelta): void {
    const params = {
      id,
      input_tokens: u.input_tokens ?? 0,
      output_tokens: u.output_tokens ?? 0,
      cache_read_tokens: u.cache_read_tokens ?? 0,
      cache_write_tokens: u.cache_write_tokens ?? 0,
      reasoning_tokens: u.reasoning_tokens ?? 0,
      api_calls: u.api_calls ?? 0,
      estimated_cost_usd: u.estimated_cost_usd ?? null,
      actual_cost_usd: u.actual_cost_usd ?? null,
      billing_provider: u.billing_provider ?? null,
      billing_base_url: u.billing_base_url ?? null,
      billing_mode: u.billing_mode ?? null,
      cost_status: u.cost_status ?? null,
      cost_source: u.cost_source ?? null,
      pricing_version: u.pricing_version ?? null,
    };
    this.sdb.withWrite(() => {
      if (this.s.usage.run(params).changes === 0) this.mustExist(id);
    });
  }

  /** The compression chain from the root session down to `id` (empty when `id` does not exist). */
  lineage(id: string): SessionRecord[] {
    return (this.s.lineage.all(id) as SessionRow[]).map(rowToSession);
  }

  /** Sessions compressed from `id`, oldest first. */
  children(id: string): SessionRecord[] {
    return (this.s.children.all(id) as SessionRow[]).map(rowToSession);
  }

  /** Throws HGW_ERR_SESSION_NOT_FOUND unless the session exists. */
  mustExist(id: string): void {
    if (!this.s.exists.get(id)) throw new HermesError("HGW_ERR_SESSION_NOT_FOUND", id);
  }
}
