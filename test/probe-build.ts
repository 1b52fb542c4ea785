/** The product built with one extra entry, a probe script, for the tests that check what runs from the bundles. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stop as stopEsbuild } from "esbuild";
import { afterAll, beforeAll } from "vitest";
import { buildProduct } from "../deploy/build.mjs";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

export interface ProbeBuild {
  /** The folder holding `probe.ts` and the build; empty until the build ran. */
  readonly dir: string;
  /** The build (`dir`/dist), with `probe` among its entries. */
  readonly out: string;
}

/**
 * Builds the product plus `probe.ts` of `source()` before the suite it is called in, and removes the folder after.
 * The folder is inside the project, so the packages left out of the bundle resolve from its node_modules.
 */
export function probeBuild(prefix: string, source: () => string): ProbeBuild {
  const build = { dir: "", out: "" };
  beforeAll(async () => {
    build.dir = await mkdtemp(join(ROOT, prefix));
    await writeFile(join(build.dir, "probe.ts"), source());
    build.out = join(build.dir, "dist");
    await buildProduct(build.out, { probe: join(build.dir, "probe.ts") });
  }, 120_000);
  afterAll(async () => {
    // esbuild keeps its service process for the next build; the test files after this one run in the same process.
    await stopEsbuild();
    if (build.dir) await rm(build.dir, { recursive: true, force: true });
  });
  return build;
}
