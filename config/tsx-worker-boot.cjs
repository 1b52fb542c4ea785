// Development and tests only: starts a worker thread from its TypeScript source (see worker-code.ts).
// - Node 20 ignores `--import tsx` in a worker's execArgv, so tsx is registered here, inside the worker.
// - tsx's CJS hooks run in this thread; its ESM hooks would run on a separate loader thread whose
//   esbuild service process is left a zombie when the worker ends.
// - ESBUILD_WORKER_THREADS=0 makes esbuild transform with one short-lived, synchronously reaped
//   process per file instead of a long-lived service child, so no process outlives the worker.
//   (This worker's process.env is its own copy.)
// - A niceness, when given, is set first, so tsx's own start-up yields too.
const { workerData } = require("node:worker_threads");

if (typeof workerData.nice === "number") require("node:os").setPriority(workerData.nice);
process.env.ESBUILD_WORKER_THREADS = "0";
require("tsx/cjs/api").register();
require(workerData.entry);
