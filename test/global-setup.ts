/**
 * Runs once before any test file (vitest's globalSetup): makes sure dist/ holds a build of the current sources.
 * Tests that start the CLI or the daemon in a child process run the built `dist/gateway/cli.js` (and the worker
 * bundles beside it), as an installation does: from source, through tsx, every child spent seconds loading modules.
 *
 * `npm test` builds first (its pretest), so this finds the build fresh and does nothing. A run of single files
 * (`npx vitest run test/e2e/...`) after an edit finds a source file newer than the build and builds again, so a
 * child process never runs stale code. The build goes to a folder of its own and is then moved into place.
 *
 * It also bundles the fake stdio MCP servers (test/fakes/mcp/*-server.ts), each into one JavaScript file in a
 * temporary folder the tests learn with `inject("mcpFakes")` (test/mcp/helpers.ts `fakePath`), removed at the end:
 * a fake then starts with plain node in a tenth of a second instead of half a second through tsx, and the MCP tests
 * start hundreds of them.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { TestProject } from "vitest/node";
import { buildProduct } from "../deploy/build.mjs";
import { DIST_CLI } from "./fakes/daemon-process.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder that holds `<name>-server.mjs`, each fake MCP server bundled. */
    mcpFakes: string;
  }
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** What the build bundles (deploy/build.mjs), and the build script itself. */
const SOURCES = ["config", "agent", "tools", "adapters", "gateway", "deploy/build.mjs", "package-lock.json"];

/** The newest modification time (ms) of `path` or of a file under it. */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Why dist/ must be built again, or null when its build is newer than every source. */
function staleness(): string | null {
  if (!existsSync(DIST_CLI)) return `${DIST_CLI} is missing`;
  const built = statSync(DIST_CLI).mtimeMs;
  const changed = SOURCES.find((s) => newest(join(ROOT, s)) > built);
  return changed === undefined ? null : `${DIST_CLI} is older than ${changed}`;
}

/** Builds dist/ again when it is missing or older than a source. */
async function buildIfStale(): Promise<void> {
  const why = staleness();
  if (why === null) return;
  const fresh = join(ROOT, `dist.building-${process.pid}`);
  try {
    await buildProduct(fresh);
  } catch (err) {
    await rm(fresh, { recursive: true, force: true });
    throw new Error(`${why}, and building it failed (run npm run build to see why): ${String(err)}`);
  }
  const dist = join(ROOT, "dist");
  if (existsSync(dist)) await rm(dist, { recursive: true, force: true });
  await rename(fresh, dist);
}

/** Bundles each fake stdio MCP server into `<dir>/<name>-server.mjs` (its packages included: the folder is anywhere). */
async function bundleMcpFakes(dir: string): Promise<void> {
  const fakes = join(ROOT, "test/fakes/mcp");
  const servers = readdirSync(fakes).filter((f) => f.endsWith("-server.ts") && f !== "http-server.ts");
  await build({
    entryPoints: servers.map((f) => join(fakes, f)),
    outdir: dir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Bundled CommonJS calls require() for Node's modules; an ES module has none, so each file makes its own.
    banner: { js: 'import { createRequire as __fakeRequire } from "node:module"; const require = __fakeRequire(import.meta.url);' },
    logLevel: "warning",
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildIfStale();
  const dir = await mkdtemp(join(tmpdir(), "hgw-test-"));
  // …/fakes/mcp/<name>-server.mjs: a test tells the fakes among its processes by "fakes/mcp" in their command line.
  const fakes = join(dir, "fakes", "mcp");
  await bundleMcpFakes(fakes);
  project.provide("mcpFakes", fakes);
  return () => rm(dir, { recursive: true, force: true });
}
