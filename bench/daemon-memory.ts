/**
 * Memory of the overhead daemon at one turn count, read twice:
 *   busy  3 s after the load stopped: what V8 still holds from the burst;
 *   idle  after the daemon's own idle GC (gateway.idle_gc_after_s, 5 s in this
 *         bench) has run: what it keeps while nothing happens — the figure an
 *         operator watching `docker stats` sees for most of the day.
 * The idle read also splits the resident set (/proc/<pid>/status) into
 * anonymous memory (heaps, SQLite's page cache, malloc) and file pages (the
 * node binary, shared libraries), which the kernel can drop at will.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { type BenchDaemon, metric, type Scrape, scrape } from "./daemon-harness.js";
import { sleep } from "./daemon-load.js";

export const IDLE_GC_LINE = "idle: returned unused heap memory";

export interface HeapRead {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** V8 heap reserved (used + free). */
  readonly heapTotalBytes: number;
}

export interface IdleRead extends HeapRead {
  readonly anonBytes: number;
  readonly fileBytes: number;
  /** How long after the busy read the daemon's idle GC ran; null when it did not (nothing to return, or no GC in time). */
  readonly gcAfterMs: number | null;
}

export interface MemoryPoint {
  readonly turns: number;
  readonly busy: HeapRead;
  readonly idle: IdleRead;
  /** state.db + its WAL on disk. */
  readonly dbBytes: number;
}

/** Reads `busy` from the settled scrape `s`, then waits up to `idleWaitMs` for the daemon's idle GC (0: don't wait). */
export async function memoryPoint(d: BenchDaemon, turns: number, s: Scrape, idleWaitMs: number): Promise<MemoryPoint> {
  const busy = heapRead(s);
  const log = join(d.home, "daemon.log");
  const from = statSync(log).size; // the log holds every turn: read only what is written while waiting
  const started = performance.now();
  let gcAfterMs: number | null = null;
  while (idleWaitMs > 0 && performance.now() - started < idleWaitMs) {
    if (logSince(log, from).includes(`"msg":"${IDLE_GC_LINE}"`)) {
      gcAfterMs = performance.now() - started;
      break;
    }
    await sleep(250);
  }
  const idle = heapRead(await scrape(d));
  return { turns, busy, idle: { ...idle, ...residentSplit(d.pid), gcAfterMs }, dbBytes: await dbBytes(d.home) };
}

function heapRead(s: Scrape): HeapRead {
  return {
    rssBytes: s.rssBytes,
    heapUsedBytes: metric(s.raw, "hermes_nodejs_heap_size_used_bytes"),
    heapTotalBytes: metric(s.raw, "hermes_nodejs_heap_size_total_bytes"),
  };
}

function logSince(path: string, from: number): string {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(Math.max(0, fstatSync(fd).size - from));
    readSync(fd, buf, 0, buf.length, from);
    return buf.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function residentSplit(pid: number): { anonBytes: number; fileBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { anonBytes: kib("RssAnon"), fileBytes: kib("RssFile") + kib("RssShmem") };
}

async function dbBytes(home: string): Promise<number> {
  const size = async (f: string) =>
    stat(join(home, f)).then(
      (st) => st.size,
      (err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return 0; // no WAL file (yet)
        throw err;
      },
    );
  return (await size("state.db")) + (await size("state.db-wal"));
}
