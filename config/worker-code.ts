/**
 * How a worker thread's code is found, the same way for every worker (the MCP
 * clients', the store's checkpoint worker). A worker is one entry module,
 * `<name>.ts`, beside the module that starts it. Run from source (tests, tsx)
 * it boots through a tiny tsx loader (tsx-worker-boot.cjs); from a build it
 * runs `<name>.bundle.cjs`, which the build writes beside the compiled module
 * (tools/shared/build-workers.mjs): one file to load instead of the graph of ES modules it
 * is made of.
 *
 * Either way the thread first sets the niceness in `workerData.nice`, when it
 * is a number, so even loading its code happens at that priority.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { WorkerOptions } from "node:worker_threads";

export interface WorkerCode {
  /** The first argument of `new Worker`. */
  readonly code: string | URL;
  readonly options: WorkerOptions;
}

/** What every worker's data may carry: the niceness its thread sets first (null: left as is). */
export interface WorkerBootData {
  readonly nice?: number | null;
}

/**
 * A build's worker: lowers its priority, then loads the bundle, so even
 * compiling the bundle happens at the worker's niceness. Where Node has V8's
 * compile cache (≥ 22.8), each worker turns it on for itself (a worker is an
 * instance of its own): the bundle is compiled once, not by every worker at
 * every start (measured on Node 24: 39 → 32 ms of CPU per MCP worker boot).
 */
const BUNDLE_BOOT = `const { workerData } = require("node:worker_threads");
if (typeof workerData.nice === "number") require("node:os").setPriority(workerData.nice);
require("node:module").enableCompileCache?.();
require(workerData.entry);`;

/** Whether `moduleUrl` is TypeScript source (run by tsx or vitest) rather than a build. */
export function fromSource(moduleUrl: string): boolean {
  return moduleUrl.endsWith(".ts");
}

/**
 * The code and options that start worker `name` beside `moduleUrl` (the
 * starting module's `import.meta.url`). Throws when a build lacks the bundle.
 * The source worker gets no inherited execArgv: an inherited `--import tsx`
 * hangs its boot on Node 20.
 */
export function workerCode(moduleUrl: string, name: string, data: WorkerBootData & object, options: Omit<WorkerOptions, "eval" | "workerData" | "execArgv"> = {}): WorkerCode {
  if (fromSource(moduleUrl)) {
    const entry = fileURLToPath(new URL(`./${name}.ts`, moduleUrl));
    return { code: new URL("./tsx-worker-boot.cjs", import.meta.url), options: { ...options, workerData: { ...data, entry }, execArgv: [] } };
  }
  const entry = fileURLToPath(new URL(`./${name}.bundle.cjs`, moduleUrl));
  if (!existsSync(entry)) throw new Error(`the worker bundle ${entry} is missing: run npm run build`);
  return { code: BUNDLE_BOOT, options: { ...options, eval: true, workerData: { ...data, entry } } };
}
