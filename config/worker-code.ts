/**
 * How the code that runs in a thread or a process of its own is found, the
 * same way for each (the MCP clients' worker and their launcher process, the
 * store's checkpoint worker). Such code is one entry module, `<name>.ts`,
 * beside the module that starts it. Run from source (tests, tsx) a worker
 * boots through a tiny tsx loader (tsx-worker-boot.cjs) and a process runs
 * under `--import tsx`; from a build they run `<name>.bundle.cjs`, which the
 * build (deploy/build.mjs, which lists every entry) writes into the one folder
 * that holds all of the build: beside whichever chunk the starting module is
 * in. One file to load instead of the graph of modules it is made of.
 *
 * Either way a worker first sets the niceness in `workerData.nice`, when it
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

/** How to run a process entry: `node ...execArgv script`. */
export interface ProcessCode {
  readonly execArgv: readonly string[];
  readonly script: string;
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

/** The file of entry `name` beside `moduleUrl`: its source, or its bundle (which must exist). */
function entryFile(moduleUrl: string, name: string): string {
  if (fromSource(moduleUrl)) return fileURLToPath(new URL(`./${name}.ts`, moduleUrl));
  const bundle = fileURLToPath(new URL(`./${name}.bundle.cjs`, moduleUrl));
  if (!existsSync(bundle)) throw new Error(`the bundle ${bundle} is missing: run npm run build`);
  return bundle;
}

/**
 * The code and options that start worker `name` beside `moduleUrl` (the
 * starting module's `import.meta.url`). Throws when a build lacks the bundle.
 * The source worker gets no inherited execArgv: an inherited `--import tsx`
 * hangs its boot on Node 20.
 */
export function workerCode(
  moduleUrl: string,
  name: string,
  data: WorkerBootData & object,
  options: Omit<WorkerOptions, "eval" | "workerData" | "execArgv"> = {},
): WorkerCode {
  const entry = entryFile(moduleUrl, name);
  if (fromSource(moduleUrl))
    return { code: new URL("./tsx-worker-boot.cjs", import.meta.url), options: { ...options, workerData: { ...data, entry }, execArgv: [] } };
  return { code: BUNDLE_BOOT, options: { ...options, eval: true, workerData: { ...data, entry } } };
}

/** How to run process entry `name` beside `moduleUrl` as a child of this process. Throws when a build lacks the bundle. */
export function processCode(moduleUrl: string, name: string): ProcessCode {
  // From source, tsx resolved from here: the child's working directory may be anywhere.
  return { execArgv: fromSource(moduleUrl) ? ["--import", import.meta.resolve("tsx")] : [], script: entryFile(moduleUrl, name) };
}
