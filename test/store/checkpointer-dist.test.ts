/**
 * The checkpoint worker as a build runs it: a probe that starts a
 * checkpointer is bundled exactly as `npm run build` bundles the command
 * (deploy/build.mjs: the chunks in one folder, the worker's bundle
 * checkpoint-worker.bundle.cjs beside them) and runs with plain node — no tsx
 * in the process. A build without the worker's bundle falls back to the main
 * thread, saying why.
 */
import { execFile } from "node:child_process";
import { cp, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { BUILD_FOLDER } from "../../deploy/build.mjs";
import { probeBuild } from "../probe-build.js";

const pexec = promisify(execFile);

/** Opens a WAL database with one write, starts a checkpointer on it, asks for a checkpoint and prints what happened. */
const PROBE = `
  import Database from "better-sqlite3";
  import { startCheckpointer } from "../gateway/store/checkpointer.js";
  const file = process.argv[2];
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1)");
  const warnings = [];
  const logger = { warn: (o, msg) => warnings.push({ ...o, msg }) };
  let fallbacks = 0;
  const result = await new Promise((done) => {
    const c = startCheckpointer(file, { logger, fallback: () => { fallbacks++; done(null); }, onCheckpoint: (r, op) => { c.close(); done({ ...r, op }); } } as never);
    c.request();
  });
  db.close();
  console.log(JSON.stringify({ result, fallbacks, warnings, execArgv: process.execArgv }));
`;

describe("the checkpoint worker from the build", () => {
  const build = probeBuild(".tmp-store-dist-", () => PROBE);

  const run = async (from: string, db: string) => {
    const { stdout } = await pexec(process.execPath, [join(from, BUILD_FOLDER, "probe.js"), join(build.dir, db)], { cwd: build.dir, timeout: 30_000 });
    return JSON.parse(stdout.trim()) as {
      result: Record<string, unknown> | null;
      fallbacks: number;
      warnings: Array<Record<string, unknown>>;
      execArgv: string[];
    };
  };

  it("checkpoints on the worker started from its bundle", async () => {
    const result = await run(build.out, "db.sqlite");
    expect(result).toMatchObject({ result: { op: "checkpoint", busy: 0, restarted: false }, fallbacks: 0, warnings: [], execArgv: [] });
    expect(result.result?.["log"]).toBeGreaterThan(0);
    expect(result.result?.["checkpointed"]).toBe(result.result?.["log"]);
  });

  it("fails over to the main thread, naming the missing bundle, in a build without it", async () => {
    const bare = join(build.dir, "bare");
    await cp(build.out, bare, { recursive: true });
    await rm(join(bare, BUILD_FOLDER, "checkpoint-worker.bundle.cjs"));
    const result = await run(bare, "bare.sqlite");
    expect(result).toMatchObject({ result: null, fallbacks: 1, execArgv: [] });
    expect(result.warnings).toEqual([
      expect.objectContaining({ reason: expect.stringContaining("checkpoint-worker.bundle.cjs is missing: run npm run build") }),
    ]);
  });
});
