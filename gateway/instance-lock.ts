/**
 * One daemon per HERMES_HOME: two would poll the same bot token (Telegram
 * answers 409) and race on the same sessions. The pid file is taken with O_EXCL;
 * a file left by a dead process is taken over.
 */
import { open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { HermesError } from "../config/errors.js";
import { processAlive } from "../tools/shared/process-alive.js";

export interface InstanceLock {
  readonly path: string;
  release(): Promise<void>;
}

export async function acquireInstanceLock(home: string, pid = process.pid): Promise<InstanceLock> {
  const path = join(home, "gateway.pid");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fh = await open(path, "wx", 0o600);
      await fh.writeFile(JSON.stringify({ pid, kind: "hermes-gateway", argv: process.argv, start_time: Date.now() / 1000 }));
      await fh.close();
      return {
        path,
        async release() {
          const current = await readOwner(path);
          if (current === pid) await rm(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const owner = await readOwner(path);
      if (owner !== null && owner !== pid && processAlive(owner)) {
        throw new HermesError("HGW_ERR_INSTANCE_RUNNING", `pid ${owner} holds ${path}. Stop it first, or use another HERMES_HOME.`);
      }
      await rm(path, { force: true }); // stale: its owner is gone
    }
  }
  throw new HermesError("HGW_ERR_INSTANCE_RUNNING", `could not take ${path}`);
}

async function readOwner(path: string): Promise<number | null> {
  try {
    const data = JSON.parse(await readFile(path, "utf8")) as { pid?: unknown };
    return typeof data.pid === "number" ? data.pid : null;
  } catch {
    return null; // unreadable or half-written: treat as stale
  }
}
