import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireInstanceLock } from "../../gateway/instance-lock.js";
import { readPidFile } from "../../gateway/pid-file.js";
import { tryExclusiveLock } from "../../gateway/store/index.js";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "hermes-lock-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const pidFile = () => join(home, "gateway.pid");
const owner = async () => (JSON.parse(await readFile(pidFile(), "utf8")) as { pid: number }).pid;

describe("instance lock", () => {
  it("is held once: a second taker is refused with the holder's pid, and can take it after the release", async () => {
    const lock = await acquireInstanceLock(home);
    expect(await owner()).toBe(process.pid);
    await expect(acquireInstanceLock(home)).rejects.toMatchObject({
      code: "HGW_ERR_INSTANCE_RUNNING",
      message: expect.stringContaining(`pid ${process.pid} holds`),
    });
    await lock.release();
    await expect(readFile(pidFile())).rejects.toMatchObject({ code: "ENOENT" });
    const again = await acquireInstanceLock(home);
    expect(again.replacedPid).toBeNull();
    await again.release();
  });

  it("takes over a pid file whose pid now belongs to another, live program", async () => {
    const other = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      await writeFile(pidFile(), JSON.stringify({ pid: other.pid, kind: "hermes-gateway", argv: ["node", "hermes-gateway"], start_time: 1 }));
      const lock = await acquireInstanceLock(home);
      expect(lock.replacedPid).toBe(other.pid);
      expect(await owner()).toBe(process.pid);
      await lock.release();
    } finally {
      other.kill("SIGKILL");
      await once(other, "exit");
    }
  });

  it("takes over a pid file from before a reboot (pid 1 in a container then is always alive now)", async () => {
    await writeFile(pidFile(), JSON.stringify({ pid: 1, kind: "hermes-gateway", argv: ["node", "hermes-gateway"], start_time: 1_600_000_000 }));
    const lock = await acquireInstanceLock(home);
    expect(lock.replacedPid).toBe(1);
    expect(await owner()).toBe(process.pid);
    await lock.release();
  });

  it("is let go by a process that is killed: the next taker gets it", async () => {
    const script = `import { acquireInstanceLock } from ${JSON.stringify(new URL("../../gateway/instance-lock.ts", import.meta.url).href)};
await acquireInstanceLock(process.env.LOCK_HOME); process.stdout.write("locked\\n"); setInterval(() => {}, 1000);`;
    const holder = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, LOCK_HOME: home },
    });
    try {
      await Promise.race([once(holder.stdout!, "data"), once(holder, "exit").then(() => Promise.reject(new Error("the lock holder exited")))]);
      await expect(acquireInstanceLock(home)).rejects.toMatchObject({ message: expect.stringContaining(`pid ${holder.pid} holds`) });
    } finally {
      holder.kill("SIGKILL");
      await once(holder, "exit");
    }
    const lock = await acquireInstanceLock(home);
    expect(lock.replacedPid).toBe(holder.pid);
    await lock.release();
  });

  it("a refused taker names the holder once the holder has written its pid file, not the stale one it replaces", async () => {
    const other = spawn("sleep", ["30"], { stdio: "ignore" });
    const held = tryExclusiveLock(join(home, "gateway.lock"));
    try {
      // The holder has the lock but has not replaced the stale file yet: the race of two daemons started at once.
      await writeFile(pidFile(), JSON.stringify({ pid: other.pid, kind: "hermes-gateway", start_time: 1 }));
      const refused = acquireInstanceLock(home).then(
        () => "acquired",
        (err: Error) => err.message,
      );
      await new Promise((r) => setTimeout(r, 300));
      await writeFile(pidFile(), JSON.stringify({ pid: process.pid, kind: "hermes-gateway", start_time: Date.now() / 1000 }));
      expect(await refused).toContain(`pid ${process.pid} holds`);
    } finally {
      held?.release();
      other.kill();
      await once(other, "exit");
    }
  });

  it("reads a pid file as naming its writer only while that process runs and had started when the file was written", async () => {
    const other = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      await writeFile(pidFile(), JSON.stringify({ pid: other.pid, kind: "hermes-gateway", start_time: 1 }));
      expect(await readPidFile(home)).toMatchObject({ kind: "pid", pid: other.pid, alive: false });
      await writeFile(pidFile(), JSON.stringify({ pid: other.pid, kind: "hermes-gateway", start_time: Date.now() / 1000 }));
      expect(await readPidFile(home)).toMatchObject({ kind: "pid", pid: other.pid, alive: true });
    } finally {
      other.kill();
      await once(other, "exit");
    }
    expect(await readPidFile(home)).toMatchObject({ kind: "pid", alive: false });
  });
});
