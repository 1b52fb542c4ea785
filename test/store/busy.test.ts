import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { HermesError } from "../../config/errors.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { tempDir } from "./helpers.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/hold-write-lock.ts", import.meta.url));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** Starts a process that holds the write lock on `file` for `holdMs`; resolves once it has the lock. */
async function holdLock(file: string, holdMs: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, file, String(holdMs)], { stdio: ["ignore", "pipe", "inherit"] });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill();
      await once(child, "exit");
    }
  });
  let out = "";
  child.stdout?.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: string) => {
      out += d;
      if (out.includes("locked")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
  return child;
}

function openWithLog(file: string): { store: Store; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _e, cb) => (lines.push(chunk.toString()), cb()) });
  const store = openStore(file, { logger: pino({ level: "debug" }, sink) });
  cleanups.push(() => store.close());
  return { store, lines };
}

describe("write-lock contention with another process", () => {
  it("retries while another process holds the lock briefly, then writes", async () => {
    const { file, cleanup } = tempDir();
    cleanups.push(cleanup);
    const { store, lines } = openWithLog(file);
    const s = store.sessions.create({ source: "cli" });
    const child = await holdLock(file, 300);
    const exited = once(child, "exit");
    const id = store.messages.append(s, { role: "user", content: "written after the lock was released" });
    expect(lines.some((l) => l.includes("locked by another process"))).toBe(true);
    expect(store.messages.list(s).map((m) => m.id)).toEqual([id]);
    const [code] = await exited;
    expect(code).toBe(0);
  });

  it("gives up with HGW_ERR_STORE_BUSY when the lock is held past the retry budget", async () => {
    const { file, cleanup } = tempDir();
    cleanups.push(cleanup);
    const { store } = openWithLog(file);
    const s = store.sessions.create({ source: "cli" });
    await holdLock(file, 8000); // the budget is 15 retries × at most 150 ms
    let err: unknown;
    try {
      store.messages.append(s, { role: "user", content: "never written" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HermesError);
    expect((err as HermesError).code).toBe("HGW_ERR_STORE_BUSY");
    expect(store.sessions.get(s)?.messageCount).toBe(0);
  });
});
