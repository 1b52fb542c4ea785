/**
 * WAL checkpoints off the main thread (gateway/store/checkpointer.ts), against
 * real SQLite files and a real worker thread: the checkpoint runs while this
 * thread is blocked, the main connection never runs one itself nor
 * restarts the WAL (the worker does, at a pause in writes), writes that never
 * pause still get the WAL restarted (the forced path), the worker's
 * connections close first (so the WAL file is removed on close), and a worker
 * that cannot open the database hands checkpoints back to the main thread.
 */
import { closeSync, existsSync, openSync, readSync, statSync, unlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type CheckpointResult, startCheckpointer } from "../../gateway/store/checkpointer.js";
import { openDatabase, type StoreDb } from "../../gateway/store/index.js";
import { until } from "../e2e/helpers.js";
import { captureLogger } from "../log-capture.js";
import { tempDir } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** The WAL header's checkpoint sequence number (bytes 12–15): a restart from the WAL's start changes it. */
function walSequence(file: string): number {
  const header = Buffer.alloc(16);
  const fd = openSync(`${file}-wal`, "r");
  readSync(fd, header, 0, 16, 0);
  closeSync(fd);
  return header.readUInt32BE(12);
}

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
    const sequences = new Set<number>();
    // Writes of 4 KB (3 WAL frames each), yielding only briefly: never a quiet moment. Up to 12,000 of them
    // (≈ 36,000 frames; SQLite restarts a WAL only when a write begins with every frame copied).
    let writes = 0;
    while (sequences.size < 3 && writes < 12_000) {
      insert(sdb, 4_000);
      if (++writes % 10 === 0) {
        await new Promise((r) => setImmediate(r));
        sequences.add(walSequence(file));
      }
    }
    expect(sdb.db.prepare("SELECT count(*) AS n FROM blobs").get()).toEqual({ n: 25 + writes });
    expect(sequences.size - 1, `WAL restarts during ${writes} writes`).toBeGreaterThanOrEqual(2);
  });

  it("keep the main connection's writes from restarting the WAL (and fsyncing its header), even after a checkpoint that copied every frame", async () => {
    const done: CheckpointResult[] = [];
    // Checkpoints requested by the timer only (after writes): each runs after a burst, so nothing is written meanwhile.
    const { sdb, file } = open({ checkpointEveryWrites: 1_000_000, checkpointIntervalMs: 50, walAutocheckpointPages: 0, onCheckpoint: (r) => done.push(r) });
    const mainCheckpoints = countMainCheckpoints(sdb);
    await until(() => done.length === 1, "the first checkpoint", 5_000);
    const sequence = walSequence(file);
    for (let round = 2; round <= 4; round++) {
      for (let i = 0; i < 25; i++) insert(sdb, 1_000);
      await until(() => done.length === round, `checkpoint ${round}`, 5_000);
      const r = done[round - 1];
      expect(r && r.busy === 0 && r.log > 0 && r.checkpointed === r.log, `checkpoint ${round} copied every frame: ${JSON.stringify(r)}`).toBe(true);
      // SQLite would restart the WAL at this write (every frame copied); the worker's pinned reader prevents it.
      for (let i = 0; i < 5; i++) insert(sdb, 100);
      expect(walSequence(file), `round ${round}: a write of the main connection restarted the WAL`).toBe(sequence);
    }
    // No writes, no more checkpoints: the timer wakes the worker only after writes.
    await until(() => done.length === 5, "the checkpoint after the last writes", 5_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toHaveLength(5);
    expect(mainCheckpoints()).toBe(0);
  });

  it("keep the pin holding the WAL when a checkpoint finds every frame copied already (two in a row, no write between)", async () => {
    // Requests that coalesce run back to back; the second finds nothing new. A read begun on a WAL with every frame
    // copied takes SQLite's read mark 0, which holds back no restart: the pin must stay where it was.
    const { sdb, file } = open({ checkpointOffThread: false, checkpointEveryWrites: 1_000_000, checkpointIntervalMs: 0, walAutocheckpointPages: 0 });
    const done: CheckpointResult[] = [];
    const worker = startCheckpointer(file, { fallback: () => expect.unreachable("the worker runs"), onCheckpoint: (r) => done.push(r) });
    cleanups.push(() => worker.close());
    for (let i = 0; i < 25; i++) insert(sdb, 1_000);
    const sequence = walSequence(file);
    for (let round = 1; round <= 3; round++) {
      worker.request();
      await until(() => done.length === round, `checkpoint ${round}`, 5_000);
    }
    expect(
      done.map((r) => r.checkpointed === r.log && r.busy === 0),
      "each found every frame copied",
    ).toEqual([true, true, true]);
    for (let i = 0; i < 5; i++) insert(sdb, 100);
    expect(walSequence(file), "a write of the main connection restarted the WAL").toBe(sequence);
    // And the pin moves on once there are new frames: the next checkpoint copies them.
    worker.request();
    await until(() => done.length === 4, "checkpoint 4", 5_000);
    expect(done[3]?.checkpointed, "the frames written since").toBe(done[3]?.log);
    expect(done[3]?.log).toBeGreaterThan(done[2]?.log ?? 0);
    for (let i = 0; i < 5; i++) insert(sdb, 100);
    expect(walSequence(file)).toBe(sequence);
  });

  it("restart the WAL on the worker, copying what it left, once it holds 1,000 frames and writes pause", async () => {
    const done: CheckpointResult[] = [];
    // Quiet means 3 s without a write: far longer than this test process's event loop stalls on a loaded 2-core
    // machine, so only the real pause below counts as one.
    const log = captureLogger();
    const { sdb, file } = open({
      logger: log.log,
      checkpointEveryWrites: 25,
      checkpointIntervalMs: 0,
      walAutocheckpointPages: 0,
      finishWhenQuietMs: 3_000,
      onCheckpoint: (r) => done.push(r),
    });
    const mainCheckpoints = countMainCheckpoints(sdb);
    const before = walSequence(file);
    // Past 1,000 frames (40 KB ≈ 10 frames a write), well short of the 5,000 that force a restart.
    for (let i = 0; i < 110; i++) {
      insert(sdb, 40_000);
      await new Promise((r) => setImmediate(r));
    }
    // Chats keep writing, one small write every 20 ms (a checkpoint every 25): writes never pause for 3 s.
    const end = Date.now() + 1_500;
    while (Date.now() < end) {
      insert(sdb, 100);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(
      done.some((r) => r.log >= 1_000 && r.log < 5_000),
      "a report of a WAL past 1,000 frames",
    ).toBe(true);
    expect(done.some((r) => r.restarted)).toBe(false);
    expect(
      log.lines.filter((l) => l.level >= 40).map((l) => l.msg),
      "warnings",
    ).toEqual([]);
    expect(walSequence(file), "no restart while writes go on").toBe(before);
    // Writes pause: the worker copies the rest and restarts the WAL; this connection neither checkpoints nor writes.
    await until(() => done.some((r) => r.restarted === true), "the restart after the pause", 10_000);
    const restartedAt = walSequence(file);
    expect(restartedAt, "the WAL restarted from its start").not.toBe(before);
    // This connection's next writes append to the fresh WAL.
    for (let i = 0; i < 5; i++) insert(sdb, 100);
    expect(walSequence(file)).toBe(restartedAt);
    expect(mainCheckpoints(), "checkpoints on the main connection").toBe(0);
    expect(sdb.db.pragma("user_version", { simple: true }), "the restarting write changes nothing").toBe(0);
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
