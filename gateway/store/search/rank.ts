/**
 * BM25 over a bounded candidate set.
 *
 * FTS5's own bm25() counts, for every query, each term's full document list
 * (xQueryPhrase) before scoring a single row: for a word in half of a million
 * messages that is tens of milliseconds, and ORDER BY rank over the whole match
 * set took 0.7–1.4 s in our measurements. Instead the search takes the K most
 * recent matches (ORDER BY rowid DESC LIMIT K, which FTS5 answers by walking
 * its doclists backwards and stopping early) and scores them here. When fewer
 * than K messages match, that set IS the full match set and the ranking equals
 * plain BM25; when more match, the ranking is BM25 among the newest K.
 */

export const K1 = 1.2;
export const B = 0.75;

/** Robertson–Spärck Jones IDF as FTS5 uses it, floored so very common terms still count a little. */
export function idf(totalDocs: number, docFreq: number): number {
  const n = Math.max(totalDocs, docFreq, 1);
  const v = Math.log((n - docFreq + 0.5) / (docFreq + 0.5));
  return Math.max(v, 1e-6);
}

/**
 * Estimates a term's document frequency from a probe of its newest `probe`
 * matches: exact when there are fewer, otherwise extrapolated from how densely
 * the matches fill the newest id range (ids are insertion order).
 */
export function estimateDocFreq(found: number, probe: number, oldestId: number | null, topId: number): number {
  if (found < probe || oldestId === null) return found;
  const span = Math.max(1, topId - oldestId + 1);
  return Math.round((found / span) * Math.max(topId, 1));
}

export interface Scored<C> {
  readonly candidate: C;
  readonly score: number;
}

/**
 * Scores candidates by BM25 given each one's term frequencies and length.
 * Ties keep the input order (newest first).
 */
export function rankBm25<C>(
  candidates: readonly C[],
  tfOf: (c: C) => readonly number[],
  lengthOf: (c: C) => number,
  idfs: readonly number[],
): Array<Scored<C>> {
  if (candidates.length === 0) return [];
  const tfs = candidates.map(tfOf);
  const lens = candidates.map(lengthOf);
  const avg = lens.reduce((a, b) => a + b, 0) / lens.length || 1;
  const scored = candidates.map((candidate, i) => {
    const tf = tfs[i] ?? [];
    const norm = K1 * (1 - B + (B * (lens[i] ?? avg)) / avg);
    let score = 0;
    for (let t = 0; t < tf.length; t++) {
      const f = tf[t] ?? 0;
      if (f > 0) score += (idfs[t] ?? 1) * ((f * (K1 + 1)) / (f + norm));
    }
    return { candidate, score, order: i };
  });
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.map(({ candidate, score }) => ({ candidate, score }));
}
