/**
 * The daemon's own per-stage breakdown of its turns, read from the Prometheus
 * histogram `hermes_turn_stage_seconds{platform,stage}` on GET /metrics: two
 * scrapes, one before a load and one after, and the difference of their
 * buckets is the load's. Each stage is the interval that ends at its mark:
 *   committed        update received → the inbound event durably committed
 *   prompt_built     → the first model request built (mailbox, session, prompt, tools)
 *   first_token      → the model's first output
 *   model_done       → the agent's last output (every model call and tool of the turn)
 *   reply_committed  → the turn and its reply committed
 *   reply_sent       → the platform answered the reply's request
 * Quantiles come from the buckets (linear within a bucket), so they are only as
 * fine as the bucket bounds; the mean is exact.
 */

export const STAGES = ["committed", "prompt_built", "first_token", "model_done", "reply_committed", "reply_sent"] as const;
export type StageName = (typeof STAGES)[number];

const METRIC = "hermes_turn_stage_seconds";

/** Cumulative bucket counts by upper bound (s), plus sum and count, of one stage. */
interface StageHistogram {
  readonly buckets: ReadonlyMap<number, number>;
  readonly sum: number;
  readonly count: number;
}

export interface StageFigures {
  readonly stage: StageName;
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** The stage histograms of one scrape (platform `platform`); empty when the daemon exports none. */
export function stageHistograms(raw: string, platform = "telegram"): Map<StageName, StageHistogram> {
  const out = new Map<StageName, { buckets: Map<number, number>; sum: number; count: number }>();
  const entry = (stage: StageName) => {
    let e = out.get(stage);
    if (!e) out.set(stage, (e = { buckets: new Map(), sum: 0, count: 0 }));
    return e;
  };
  for (const line of raw.split("\n")) {
    if (!line.startsWith(METRIC)) continue;
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const [, name, labelText, value] = m;
    const labels = Object.fromEntries([...(labelText ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    const stage = labels.stage as StageName;
    if (labels.platform !== platform || !STAGES.includes(stage)) continue;
    const e = entry(stage);
    const v = Number(value);
    if (name === `${METRIC}_bucket`) e.buckets.set(labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(labels.le), v);
    else if (name === `${METRIC}_sum`) e.sum = v;
    else if (name === `${METRIC}_count`) e.count = v;
  }
  return out;
}

/**
 * Each stage over the loads between pairs of scrapes (before, after), pooled: the buckets' differences are
 * summed over the pairs. Null when the daemon exports no stage histogram.
 */
export function stageFigures(pairs: ReadonlyArray<readonly [before: string, after: string]>): StageFigures[] | null {
  const diffs = pairs.map(([before, after]) => [stageHistograms(before), stageHistograms(after)] as const);
  if (diffs.every(([, b]) => b.size === 0)) return null;
  return STAGES.map((stage) => {
    const buckets = new Map<number, number>();
    let count = 0;
    let sum = 0;
    for (const [a, b] of diffs) {
      const start = a.get(stage);
      const end = b.get(stage);
      count += (end?.count ?? 0) - (start?.count ?? 0);
      sum += (end?.sum ?? 0) - (start?.sum ?? 0);
      for (const [le, n] of end?.buckets ?? []) buckets.set(le, (buckets.get(le) ?? 0) + n - (start?.buckets.get(le) ?? 0));
    }
    const sorted = [...buckets].sort((x, y) => x[0] - y[0]);
    return {
      stage,
      count,
      meanMs: count > 0 ? (sum / count) * 1000 : Number.NaN,
      p50Ms: quantile(sorted, count, 0.5) * 1000,
      p99Ms: quantile(sorted, count, 0.99) * 1000,
    };
  });
}

/** The q-quantile from cumulative buckets, linear within the bucket it falls in (the last finite bound beyond them). */
function quantile(buckets: ReadonlyArray<readonly [number, number]>, count: number, q: number): number {
  if (count <= 0) return Number.NaN;
  const rank = q * count;
  let prevLe = 0;
  let prevN = 0;
  for (const [le, n] of buckets) {
    if (n >= rank) {
      if (!Number.isFinite(le)) return prevLe;
      return prevLe + ((le - prevLe) * (rank - prevN)) / Math.max(1, n - prevN);
    }
    prevLe = le;
    prevN = n;
  }
  return prevLe;
}
