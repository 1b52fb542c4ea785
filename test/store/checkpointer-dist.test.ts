/**
 * The checkpoint worker as a build runs it: gateway/store/checkpointer.ts and
 * the worker-code helper transpiled to .js (as `tsc` emits them to dist/)
 * start the worker from the bundle npm run build writes beside them
 * (checkpoint-worker.bundle.cjs), with plain node — no tsx in the process. A
 * build without the bundle falls back to the main thread, saying why.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { transform } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleOf, bundleWorker } from "../../tools/shared/build-workers.mjs";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const ENTRY = "gateway/store/checkpoint-worker.ts";
const pexec = promisify(execFile);

/** Opens a WAL database with one write, starts a checkpointer on it, asks for a checkpoint and prints what happened. */
const SCRIPT = `
  import Database from "better-sqlite3";
  import { startCheckpointer } from "./gateway/store/checkpointer.js";
  const file = process.argv[2];
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1)");
  const warnings = [];
  const logger = { warn: (o, msg) => warnings.push({ ...o, msg }) };
  let fallbacks = 0;
  const result = await new Promise((done) => {
    const c = startCheckpointer(file, { logger, fallback: () => { fallbacks++; done(null); }, onCheckpoint: (r, op) => { c.close(); done({ ...r, op }); } });
    c.request();
  });
  db.close();
  console.log(JSON.stringify({ result, fallbacks, warnings, execArgv: process.execArgv }));
`;

describe("the checkpoint worker from compiled JavaScript", () => {
  let dir = "";

  beforeAll(async () => {
    // Inside the project, so better-sqlite3 resolves from its node_modules.
    dir = await mkdtemp(join(ROOT, ".tmp-store-dist-"));
    for (const file of ["gateway/store/checkpointer.ts", "config/worker-code.ts"]) {
      const { code } = await transform(await readFile(join(ROOT, file), "utf8"), { loader: "ts", format: "esm", target: "node20" });
      await mkdir(join(dir, file, ".."), { recursive: true });
      await writeFile(join(dir, file.replace(/\.ts$/, ".js")), code);
    }
    await writeFile(join(dir, "run.mjs"), SCRIPT);
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const run = async () => {
    const { stdout } = await pexec(process.execPath, [join(dir, "run.mjs"), join(dir, "db.sqlite")], { cwd: dir, timeout: 30_000 });
    return JSON.parse(stdout.trim()) as { result: Record<string, unknown> | null; fallbacks: number; warnings: Array<Record<string, unknown>>; execArgv: string[] };
  };

  it("fails over to the main thread, naming the missing bundle, in a build without it", async () => {
    const out = await run();
    expect(out).toMatchObject({ result: null, fallbacks: 1, execArgv: [] });
    expect(out.warnings).toEqual([expect.objectContaining({ reason: expect.stringContaining("checkpoint-worker.bundle.cjs is missing: run npm run build") })]);
  });

  it("checkpoints on the worker started from its bundle", async () => {
    await bundleWorker(ENTRY, dir); // as npm run build does
    expect(bundleOf(ENTRY)).toBe("gateway/store/checkpoint-worker.bundle.cjs");
    const out = await run();
    expect(out).toMatchObject({ result: { op: "checkpoint", busy: 0, restarted: false }, fallbacks: 0, warnings: [], execArgv: [] });
    expect(out.result?.["log"]).toBeGreaterThan(0);
    expect(out.result?.["checkpointed"]).toBe(out.result?.["log"]);
  });
});
