// Build step (npm run build, after tsc): bundles the MCP worker — worker-entry.ts with everything it imports,
// the MCP SDK, zod and ajv included — into one CommonJS file next to the compiled server-channel.js.
// Every MCP server has its own worker thread, and each one loads this code afresh: from one bundled file it
// costs about 40 % less CPU than resolving and linking the ~200 ES modules it is made of (measured on Node 20:
// ≈ 0.22 s instead of ≈ 0.36 s of process CPU per worker boot). The HTTP transports stay lazy: esbuild keeps a
// dynamic import() as a function that evaluates the module on first use.
//
//   node tools/mcp/build-worker.mjs <out-dir>        (the test and the benchmark import bundleWorker)
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The bundle's file name; worker-thread.ts looks for this name beside itself (a test starts a worker from the bundle). */
export const WORKER_BUNDLE = "worker.bundle.cjs";

/** Writes `<outDir>/worker.bundle.cjs` from tools/mcp/worker-entry.ts. */
export async function bundleWorker(outDir) {
  await build({
    entryPoints: [fileURLToPath(new URL("./worker-entry.ts", import.meta.url))],
    outfile: join(outDir, WORKER_BUNDLE),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    logLevel: "warning",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2];
  if (!outDir) throw new Error("usage: node tools/mcp/build-worker.mjs <out-dir>");
  await bundleWorker(outDir);
}
