/**
 * Runs once before any test file (vitest's globalSetup): makes sure dist/ holds a build of the current sources.
 * Tests that start the CLI or the daemon in a child process run the built `dist/gateway/cli.js` (and the worker
 * bundles beside it), as an installation does: from source, through tsx, every child spent seconds loading modules.
 *
 * `npm test` builds first (its pretest), so this finds the build fresh and does nothing. A run of single files
 * (`npx vitest run test/e2e/...`) after an edit finds a source file newer than the build and builds again, so a
 * child process never runs stale code. The build goes to a folder of its own and is then moved into place.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DIST_CLI } from "./fakes/daemon-process.js";

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

export default async function setup(): Promise<void> {
  const why = staleness();
  if (why === null) return;
  const { buildProduct } = (await import(join(ROOT, "deploy/build.mjs"))) as { buildProduct: (outDir: string) => Promise<unknown> };
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
