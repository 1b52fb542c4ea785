/**
 * WAL checkpoints off the main thread (gateway/store/checkpointer.ts), against
 * real SQLite files and a real worker thread: the checkpoint runs while this
 * thread is blocked, the main connection never runs one itself (its
 * finishing copy waits for a pause in writes), the worker's
 * connection closes first (so the WAL file is removed on close), and a worker
 * that cannot open the database hands checkpoints back to the main thread.
 */
import { closeSync, existsSync, openSync, readSync, statSync, unlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type StoreDb } from "../../gateway/store/index.js";
import type { CheckpointResult } from "../../gateway/store/checkpointer.js";
import { until } from "../e2e/helpers.js";
import { captureLogger } from "../log-capture.js";
import { tempDir } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** Counts checkpoints the main connection runs itself. */
function countMainCheckpoints(sdb: StoreDb): () => number {
  let n = 0;
  const pragma = sdb.db.pragma.bind(sdb.db);
  sdb.db.pragma = ((src: string, opts?: { simple?: boolean }) => {
    if (src.includes("wal_checkpoint")) n += 1;
    return pragma(src, opts);
  }) as typeof sdb.db.pragma;
  return () => n;
}

function open(extra: Parameters<typeof openDatabase>[1] = {}): { sdb: StoreDb; file: string } {
  const t = tempDir();
  const sdb = openDatabase(t.file, extra);
  cleanups.push(t.cleanup, () => sdb.close());
  sdb.withWrite(() => sdb.db.exec("CREATE TABLE blobs (b BLOB)"));
  return { sdb, file: t.file };
}

const insert = (sdb: StoreDb, bytes: number) => sdb.withWrite(() => sdb.db.prepare("INSERT INTO blobs (b) VALUES (?)").run(Buffer.alloc(bytes, 7)));

/** Waits until `count` has not changed for 300 ms. */
async function quiet(count: () => number): Promise<void> {
  let last = -1;
  while (count() !== last) {
    last = count();
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Blocks this thread (no event loop turn) until `check` holds or `ms` pass. */
function blockUntil(check: () => boolean, ms: number): boolean {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    Atomics.wait(nap, 0, 0, 5);
  }
  return check();
}

describe("background WAL checkpoints", () => {
  it("run on a worker thread, even while this thread is blocked, and never on the main connection", async () => {
    const done: CheckpointResult[] = [];
    const { sdb, file } = open({ checkpointEveryWrites: 25, checkpointIntervalMs: 0, onCheckpoint: (r) => done.push(r) });
    const mainCheckpoints = countMainCheckpoints(sdb);
    for (let i = 0; i < 60; i++) {
      insert(sdb, 100);
      await new Promise((r) => setImmediate(r));
    }
    await until(() => done.length > 0, "a background checkpoint", 5_000);
    expect(done[0]?.checkpointed).toBeGreaterThan(0);
    await quiet(() => done.length); // no checkpoint in flight: the next request starts one

    // 50 writes of 40 KB cross the threshold twice; from here on this thread does not yield.
    const before = statSync(file).size;
    for (let i = 0; i < 50; i++) insert(sdb, 40_000);
    const grew = blockUntil(() => statSync(file).size > before, 5_000);
    expect(grew, "the database file grew (pages copied from the WAL) while the main thread was blocked").toBe(true);
    expect(mainCheckpoints()).toBe(0);
  });

  it("keep the WAL restarting from its start under steady writes, instead of growing", async () => {
    // No SQLite auto-checkpoint: only ours may copy frames.
    const done: CheckpointResult[] = [];
    const { sdb, file } = open({ checkpointEveryWrites: 25, checkpointIntervalMs: 0, walAutocheckpointPages: 0, onCheckpoint: (r) => done.push(r) });
    for (let i = 0; i < 25; i++) insert(sdb, 100);
    await until(() => done.length > 0, "the first background checkpoint", 5_000); // the worker is up
    // A WAL restart rewrites the header with a new checkpoint sequence number (bytes 12–15).
    const header = Buffer.alloc(16);
    const sequences = new Set<number>();
    const fd = openSync(`${file}-wal`, "r");
    // Writes of 4 KB (3 WAL frames each), yielding only briefly: never a quiet moment. Up to 12,000 of them
    // (≈ 36,000 frames; SQLite restarts a WAL only when a write begins with every frame copied).
    let writes = 0;
    while (sequences.size < 3 && writes < 12_000) {
      insert(sdb, 4_000);
      if (++writes % 10 === 0) {
        await new Promise((r) => setImmediate(r));
        readSync(fd, header, 0, 16, 0);
        sequences.add(header.readUInt32BE(12));
      }
    }
    closeSync(fd);
    expect(sdb.db.prepare("SELECT count(*) AS n FROM blobs").get()).toEqual({ n: 25 + writes });
    expect(sequences.size - 1, `WAL restarts during ${writes} writes`).toBeGreaterThanOrEqual(2);
  });

  it("leave the main connection's finishing copy (and its fsyncs) for a pause in writes, then restart the WAL", async () => {
    const done: CheckpointResult[] = [];
    const { sdb, file } = open({ checkpointEveryWrites: 25, checkpointIntervalMs: 0, walAutocheckpointPages: 0, finishWhenQuietMs: 1_000, onCheckpoint: (r) => done.push(r) });
    const mainCheckpoints = countMainCheckpoints(sdb);
    const sequence = (): number => {
      const header = Buffer.alloc(16);
      const fd = openSync(`${file}-wal`, "r");
      readSync(fd, header, 0, 16, 0);
      closeSync(fd);
      return header.readUInt32BE(12);
    };
    // Past 1,000 frames (40 KB ≈ 10 frames a write) in one burst, well short of the 5,000 that force the copy.
    for (let i = 0; i < 110; i++) insert(sdb, 40_000);
    const before = sequence();
    // Chats keep writing, one small write every 20 ms (a checkpoint request every 25): the worker reports the
    // WAL past 1,000 frames, but writes never pause for 1 s, so no copy on this thread.
    const end = Date.now() + 2_000;
    while (Date.now() < end) {
      insert(sdb, 100);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(done.some((r) => r.log >= 1_000 && r.log < 5_000), "a report of a WAL past 1,000 frames").toBe(true);
    expect(mainCheckpoints(), "a finishing checkpoint on the main connection while writes went on").toBe(0);
    // Writes pause: the main connection copies what is left, and the next write starts the WAL afresh.
    await until(() => mainCheckpoints() > 0, "the finishing checkpoint after the pause", 5_000);
    insert(sdb, 100);
    expect(sequence(), "the WAL restarted from its start").not.toBe(before);
  });

  it("close the worker's connection first: the main one closes last and removes the WAL", async () => {
    const done: CheckpointResult[] = [];
    const { sdb, file } = open({ checkpointEveryWrites: 5, checkpointIntervalMs: 0, onCheckpoint: (r) => done.push(r) });
    for (let i = 0; i < 20; i++) {
      insert(sdb, 1_000);
      await new Promise((r) => setImmediate(r));
    }
    await until(() => done.length > 0, "a background checkpoint", 5_000);
    expect(existsSync(`${file}-wal`)).toBe(true);
    sdb.close();
    expect(existsSync(`${file}-wal`), "a connection left open would keep the WAL file").toBe(false);
    // A closed store takes no more requests and reopens cleanly.
    const again = openDatabase(file);
    expect(again.db.prepare("SELECT count(*) AS n FROM blobs").get()).toEqual({ n: 20 });
    again.close();
  });

  it("fall back to the main thread, with one warning, when the worker cannot open the database", async () => {
    const log = captureLogger();
    const { sdb, file } = open({ logger: log.log, checkpointEveryWrites: 1_000_000, checkpointIntervalMs: 30 });
    const mainCheckpoints = countMainCheckpoints(sdb);
    unlinkSync(file); // the worker opens by name and must find the file; this connection keeps its open file
    await until(() => log.lines.some((l) => l.msg.startsWith("store: background WAL checkpoints unavailable")), "the fallback warning", 5_000);
    insert(sdb, 100);
    await until(() => mainCheckpoints() > 0, "a checkpoint on the main connection", 5_000);
    expect(log.lines.filter((l) => l.msg.startsWith("store: background WAL checkpoints unavailable"))).toHaveLength(1);
  });

  it("stay on the main connection when turned off", async () => {
    const done: CheckpointResult[] = [];
    const { sdb } = open({ checkpointOffThread: false, checkpointEveryWrites: 5, checkpointIntervalMs: 0, onCheckpoint: (r) => done.push(r) });
    const mainCheckpoints = countMainCheckpoints(sdb);
    for (let i = 0; i < 10; i++) insert(sdb, 100);
    await until(() => mainCheckpoints() >= 1, "a checkpoint on the main connection", 5_000);
    expect(done).toEqual([]);
  });
});
