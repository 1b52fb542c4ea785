/**
 * Deferred search indexing. Appends write only `messages`; this moves the
 * watermark `fts_state.indexed_upto` forward, indexing the rows above it into
 * both FTS5 tables in batches — FTS5 writes one segment per transaction, so
 * batching is what makes indexing affordable (measured ~65 µs/row in batches of
 * 2000, ~125 µs/row in batches of 100; one row per transaction is worse still).
 *
 * When it runs: `schedule()` after an append (coalesced, after `delayMs`),
 * then in small time-boxed ticks that yield to the event loop between them;
 * `catchUp()` before every search (results always include every committed
 * message) and on close, in large batches. The watermark lives in the
 * database, so another process's appends are indexed too.
 */
import type { StoreDb } from "./db.js";

export interface IndexerOptions {
  /** Delay between an append and the first background tick. Default 200 ms. */
  readonly delayMs?: number;
  /** How long one background tick may hold the event loop, roughly. Default 10 ms. */
  readonly tickBudgetMs?: number;
  /** Rows per transaction when catching up synchronously. Default 1000. */
  readonly batchRows?: number;
}

export interface Indexer {
  /** Rows appended but not yet searchable. */
  pending(): number;
  /** Indexes everything pending, synchronously. Returns the number of rows indexed. */
  catchUp(): number;
  /** Arranges background indexing soon. Cheap; safe to call after every append. */
  schedule(): void;
  /** Reindexes every message from scratch (repair). */
  rebuild(): void;
  /** Indexes pending rows, then runs FTS5's integrity check of both indexes against the messages (throws SQLITE_CORRUPT_VTAB on a mismatch). Slow on big stores. */
  verify(): void;
  /** Cancels background work; the caller may catchUp() first. */
  stop(): void;
}

const MIN_TICK_ROWS = 20;

export function createIndexer(sdb: StoreDb, opts: IndexerOptions = {}): Indexer {
  const { db } = sdb;
  const delayMs = opts.delayMs ?? 200;
  const budgetMs = opts.tickBudgetMs ?? 10;
  const batchRows = opts.batchRows ?? 1000;
  const state = db.prepare(`SELECT indexed_upto AS upto, (SELECT COALESCE(max(id), 0) FROM messages) AS top FROM fts_state WHERE id = 1`);
  const batchEnd = db.prepare(`SELECT max(id) FROM (SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT ?)`).pluck();
  const countAbove = db.prepare(`SELECT count(*) FROM messages WHERE id > ?`).pluck();
  const insertWord = db.prepare(`INSERT INTO messages_fts(rowid, content) SELECT id, content FROM messages_fts_source WHERE id > ? AND id <= ?`);
  const insertTri = db.prepare(`INSERT INTO messages_fts_trigram(rowid, content) SELECT id, content FROM messages_fts_trigram_source WHERE id > ? AND id <= ?`);
  const setUpto = db.prepare(`UPDATE fts_state SET indexed_upto = ? WHERE id = 1`);
  let timer: NodeJS.Timeout | null = null;
  let immediate: NodeJS.Immediate | null = null;
  let tickRows = 100;

  const read = () => state.get() as { upto: number; top: number };

  /** Indexes up to `rows` rows in one transaction; returns how many (0 when caught up). */
  function flushBatch(rows: number): number {
    // Checked outside the transaction first: a search must not take the write lock for nothing.
    const before = read();
    if (before.top <= before.upto) return 0;
    return sdb.withWrite(() => {
      const { upto, top } = read();
      if (top <= upto) return 0;
      const end = batchEnd.get(upto, rows) as number;
      const n = insertWord.run(upto, end).changes;
      insertTri.run(upto, end);
      setUpto.run(end);
      return n;
    });
  }

  function catchUp(): number {
    let total = 0;
    for (let n = flushBatch(batchRows); n > 0; n = flushBatch(batchRows)) total += n;
    return total;
  }

  /** One time-boxed batch; the batch size adapts so a tick takes about `budgetMs`. */
  function tick(): void {
    timer = null;
    immediate = null;
    try {
      const started = performance.now();
      const n = flushBatch(tickRows);
      const ms = performance.now() - started;
      if (n === tickRows && ms > 0) tickRows = Math.max(MIN_TICK_ROWS, Math.min(batchRows, Math.round((tickRows * budgetMs) / ms)));
      if (n > 0) {
        immediate = setImmediate(tick);
        immediate.unref();
      }
    } catch (err) {
      // The rows stay above the watermark; the next search or tick retries them.
      sdb.logger?.warn({ err }, "store: background search indexing failed; will retry");
      schedule(delayMs * 5);
    }
  }

  function schedule(ms = delayMs): void {
    if (timer || immediate) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  }

  function stop(): void {
    if (timer) clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
    timer = null;
    immediate = null;
  }

  return {
    pending: () => countAbove.get(read().upto) as number,
    catchUp,
    schedule: () => schedule(),
    rebuild: () =>
      sdb.withWrite(() => {
        db.exec(`INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')`);
        db.exec(`INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES ('rebuild')`);
        setUpto.run(read().top);
      }),
    verify: () => {
      catchUp();
      db.exec(`INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)`);
      db.exec(`INSERT INTO messages_fts_trigram(messages_fts_trigram, rank) VALUES ('integrity-check', 1)`);
    },
    stop,
  };
}
