/**
 * What the checkpointer (checkpointer.ts, on the main thread) and its worker
 * thread (checkpoint-worker.ts) say to each other. Types only.
 */

export interface CheckpointResult {
  /** 1 if a reader or writer kept it from finishing (the next one catches up). */
  readonly busy: number;
  /** Frames in the WAL. */
  readonly log: number;
  /** Frames copied into the database so far. */
  readonly checkpointed: number;
  /** Whether the worker then restarted the WAL from its start (only a finish or force that copied every frame can). */
  readonly restarted: boolean;
}

/** `checkpoint`: a passive copy; `finish`: one that may restart the WAL (at a pause in writes); `force`: the same when writes never pause. */
export type CheckpointOp = "checkpoint" | "finish" | "force";

/** An operation, or `close`: close both connections, then set `closed[0]` to 1 and notify it. */
export type ToWorker = CheckpointOp | "close";

export type FromWorker =
  /** The worker could not open its connections: it does nothing more. */
  | { readonly kind: "failed"; readonly message: string }
  | { readonly kind: "warn"; readonly message: string }
  | { readonly kind: "done"; readonly op: CheckpointOp; readonly result: CheckpointResult }
  | { readonly kind: "error"; readonly op: CheckpointOp; readonly message: string };

export interface CheckpointWorkerData {
  /** The database file (its WAL is `<path>-wal`). */
  readonly path: string;
  /** One Int32 the worker sets to 1 once its connections are closed: the main thread waits on it synchronously. */
  readonly closed: SharedArrayBuffer;
}
