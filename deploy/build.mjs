#!/usr/bin/env node
// The production build (`npm run build`): esbuild bundles the product — config, agent, tools, adapters and gateway,
// never test/ or bench/ — into one folder, dist/gateway/:
//
//   cli.js             the `hermes-gateway` command (ESM; package.json's bin), and the chunks it imports
//                      (chunk-*.js; a part loaded only when it is needed is a chunk of its own: each platform's
//                      SDK, each provider API's, MCP, the web tools' HTML stack, each CLI command)
//   <name>.bundle.cjs  every entry that runs in a thread or a process of its own (ENTRIES), bundled on its own,
//                      found by config/worker-code.ts beside the chunk that starts it
//   *.map              source maps without the sources: the bundles are minified, and
//                      NODE_OPTIONS=--enable-source-maps maps stack traces back to the TypeScript
//
// npm packages are bundled in as well: resolving and loading the ≈ 800 modules a start needs (≈ 300 of them ours)
// one by one took most of the daemon's start-up; bundled, they are ≈ 30 files. EXTERNAL lists those that cannot be, which load from node_modules at run time.
// Type-checking is not part of the build: `npm run check` does it, over the tests and benchmarks as well.
//
//   node deploy/build.mjs [out-dir]          (default: dist)
import { rm } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

/** The folder inside the output directory that holds every file of the build. */
export const BUILD_FOLDER = "gateway";

/** The command: dist/gateway/cli.js. */
export const MAIN = { cli: "gateway/cli.ts" };

/**
 * Sources that run in a worker thread or a child process of their own, each bundled alone into
 * `<basename>.bundle.cjs` (CommonJS: a worker's boot loads it with require(), before which it may lower its
 * priority). The code names them by their basename (config/worker-code.ts); a test checks that every name
 * it uses is listed here.
 */
export const ENTRIES = ["tools/mcp/worker-entry.ts", "tools/mcp/launcher.ts", "gateway/store/checkpoint-worker.ts"];

/**
 * Left to node_modules: better-sqlite3 is a native addon; sh-syntax reads its WebAssembly file from beside its
 * own module. (pino-pretty is loaded with require() on a terminal only; packages' optional peers, required
 * inside try/catch, are looked up at run time as they would be without the bundle.)
 */
export const EXTERNAL = ["better-sqlite3", "sh-syntax"];

/** Bundled CommonJS calls require() for Node's modules; an ES module has none, so each chunk makes its own. */
const REQUIRE_BANNER = 'import { createRequire as __hgwCreateRequire } from "node:module"; const require = __hgwCreateRequire(import.meta.url);';

/**
 * Whitespace and syntax minified (names kept as written): V8 scans every byte of a module it loads, and the
 * smaller files start ≈ 10–15 % faster. Stack traces point into the bundle; the source maps lead back.
 */
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  sourcesContent: false,
  logLevel: "warning",
  absWorkingDir: ROOT,
};

/**
 * Writes the command and its chunks into `<outDir>/gateway/` (`main` replaces the command: a test builds a probe of
 * its own in the same layout), then the separate entries beside them. Returns esbuild's metafile of the
 * command's build (which input went into which output).
 */
export async function buildProduct(outDir = join(ROOT, "dist"), main = MAIN) {
  await rm(outDir, { recursive: true, force: true });
  const dir = join(outDir, BUILD_FOLDER);
  const app = await build({
    ...common,
    entryPoints: main,
    outdir: dir,
    format: "esm",
    splitting: true,
    chunkNames: "[name]-[hash]",
    banner: { js: REQUIRE_BANNER },
    metafile: true,
  });
  await buildEntries(dir);
  return app.metafile;
}

/** Bundles each of ENTRIES into `<dir>/<basename>.bundle.cjs`. */
export async function buildEntries(dir) {
  const names = ENTRIES.map((e) => basename(e, ".ts"));
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new Error(`two entries would both be ${twice}.bundle.cjs`);
  await Promise.all(
    ENTRIES.map((entry) => build({ ...common, entryPoints: [entry], outfile: join(dir, `${basename(entry, ".ts")}.bundle.cjs`), format: "cjs" })),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildProduct(resolve(process.argv[2] ?? join(ROOT, "dist")));
}
