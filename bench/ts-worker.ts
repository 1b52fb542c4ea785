/**
 * A worker thread running a TypeScript module of the bench (the bench runs
 * through tsx, whose loader a worker does not inherit): the worker registers
 * tsx first, then imports `file`.
 */
import { Worker } from "node:worker_threads";

export function tsWorker(file: URL, workerData: unknown): Worker {
  const boot = `import { register } from ${JSON.stringify(import.meta.resolve("tsx/esm/api"))}; register(); await import(${JSON.stringify(file.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { workerData });
}
