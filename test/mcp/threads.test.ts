/**
 * The MCP worker threads as Linux sees them (/proc): servers are spread over
 * at most `mcp.worker_threads` threads, each named "mcp:<n>", running (with
 * their server processes) at `mcp.nice` while the main thread keeps its
 * priority; a server's retries soon after a failure reuse its thread instead
 * of booting a new worker, and a thread ends with its last server.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { autogroupNice } from "../../tools/common/autogroup.js";
import { parseProcStat } from "../../tools/common/proc-stat.js";
import { workerThreadName } from "../../tools/mcp/protocol.js";
import { McpThread, workerNice } from "../../tools/mcp/worker-thread.js";
import { descendants, fakeServer, ownThreads, TestManagers, waitFor } from "./helpers.js";

const managers = new TestManagers();
const build = managers.build.bind(managers);

/** Field 19 (nice) of a /proc stat line. */
function niceOf(statPath: string): number {
  return parseProcStat(readFileSync(statPath, "utf8")).field(19);
}

/** Thread ids of this process whose name is `comm`. */
function threadsNamed(comm: string): number[] {
  return [...ownThreads()].filter(([, name]) => name === comm).map(([tid]) => tid);
}

/** Names of this process's MCP worker threads, sorted. */
function mcpThreadNames(): string[] {
  return [...ownThreads().values()].filter((name) => name.startsWith("mcp:")).sort();
}

afterEach(async () => {
  await managers.shutDown();
  expect(await descendants()).toEqual([]);
});

describe("thread names and niceness", () => {
  it("names are mcp:<n>, cut to the 15 bytes Linux keeps", () => {
    expect(workerThreadName("1")).toBe("mcp:1");
    expect(workerThreadName("a-very-long-label-name")).toBe("mcp:a-very-long");
    expect(Buffer.byteLength(workerThreadName("ééééééééé"))).toBeLessThanOrEqual(15);
  });

  it("niceness is relative to the creating thread's, capped at 19; 0 leaves it alone", () => {
    expect(workerNice(10, () => 0)).toBe(10);
    expect(workerNice(10, () => 5)).toBe(15); // a gateway already niced still wins over its tools
    expect(workerNice(10, () => 15)).toBe(19);
    expect(workerNice(10, () => -5)).toBe(5);
    expect(workerNice(0, () => 5)).toBeNull();
  });

  it("the gateway's autogroup niceness, or in the root group (an empty file: started by init) its own", () => {
    expect(autogroupNice("/autogroup-42 nice 3\n", 0)).toBe(3);
    expect(autogroupNice("/autogroup-7 nice -2\n", 5)).toBe(-2);
    expect(autogroupNice("", 4)).toBe(4);
  });
});

describe.runIf(process.platform === "linux")("MCP worker threads under Linux", () => {
  it("run the worker thread and its server mcp.nice nicer than the main thread, which keeps its own", async () => {
    const mainNice = niceOf(`/proc/self/task/${process.pid}/stat`);
    const { manager, status } = build({ prio: fakeServer("normal") }, { nice: 5 });
    manager.start();
    await manager.whenDiscovered();
    const pid = status("prio")?.pid;
    expect(pid).toBeGreaterThan(0);
    const [tid, ...more] = threadsNamed("mcp:1");
    expect(more).toEqual([]);
    expect(niceOf(`/proc/self/task/${tid}/stat`)).toBe(Math.min(19, mainNice + 5));
    expect(niceOf(`/proc/${pid}/stat`)).toBe(niceOf(`/proc/self/task/${tid}/stat`));
    expect(niceOf(`/proc/self/task/${process.pid}/stat`)).toBe(mainNice);
  });

  it("leave priorities alone with mcp.nice 0", async () => {
    const mainNice = niceOf(`/proc/self/task/${process.pid}/stat`);
    const { manager, status } = build({ same: fakeServer("normal") }, { nice: 0 });
    manager.start();
    await manager.whenDiscovered();
    const [tid] = threadsNamed("mcp:1");
    expect(niceOf(`/proc/self/task/${tid}/stat`)).toBe(mainNice);
    expect(niceOf(`/proc/${status("same")?.pid}/stat`)).toBe(mainNice);
  });

  it("keep a crashed server's thread for its retry: a new process, the same thread", async () => {
    const { sink, manager, status } = build({ crashy: fakeServer("crash") });
    manager.start();
    await manager.whenDiscovered();
    const firstPid = status("crashy")?.pid;
    const [firstTid, ...more] = threadsNamed("mcp:1");
    expect(more).toEqual([]);
    await sink.run("mcp__crashy__crash");
    await waitFor(() => status("crashy")?.state === "ready" && status("crashy")?.pid !== firstPid, 15_000, "the restarted server");
    expect(threadsNamed("mcp:1")).toEqual([firstTid]);
    // The fresh client in the kept thread works, and the old process is gone.
    expect(await sink.run("mcp__crashy__add", { a: 2, b: 3 })).toEqual({ success: true, result: "5" });
    expect((await descendants()).map((p) => p.pid)).not.toContain(firstPid);
  });

  it("close the thread when the retry is far off", async () => {
    const { sink, manager, status } = build({ later: fakeServer("crash") }, { retry_initial_s: 60, retry_max_s: 60 });
    manager.start();
    await manager.whenDiscovered();
    expect(mcpThreadNames()).toEqual(["mcp:1"]);
    await sink.run("mcp__later__crash");
    await waitFor(() => status("later")?.state === "failed", 5_000, "the failed state");
    await waitFor(() => mcpThreadNames().length === 0, 10_000, "the worker thread to end");
  });

  it("spread the servers over mcp.worker_threads threads, each serving all of its servers", async () => {
    const servers = { a: fakeServer("normal"), b: fakeServer("normal"), c: fakeServer("normal") };
    const { sink, manager, status } = build(servers, { worker_threads: 2 });
    manager.start();
    await manager.whenDiscovered();
    expect(mcpThreadNames()).toEqual(["mcp:1", "mcp:2"]);
    expect(
      Object.keys(servers)
        .map((name) => status(name)?.thread)
        .sort(),
    ).toEqual(["mcp:1", "mcp:1", "mcp:2"]);
    for (const name of Object.keys(servers)) {
      expect(status(name)?.state).toBe("ready");
      expect(await sink.run(`mcp__${name}__add`, { a: 1, b: 2 })).toEqual({ success: true, result: "3" });
    }
    await manager.shutdown();
    expect(mcpThreadNames()).toEqual([]);
  });

  it("give every server its own thread when worker_threads is at least the number of servers", async () => {
    const { manager } = build({ a: fakeServer("normal"), b: fakeServer("normal"), c: fakeServer("normal") }, { worker_threads: 8 });
    manager.start();
    await manager.whenDiscovered();
    expect(mcpThreadNames()).toEqual(["mcp:1", "mcp:2", "mcp:3"]);
  });

  it("keep a shared thread for its other servers when one of them fails and closes", async () => {
    const { sink, manager, status } = build(
      { steady: fakeServer("normal"), later: fakeServer("crash") },
      { worker_threads: 1, retry_initial_s: 60, retry_max_s: 60 },
    );
    manager.start();
    await manager.whenDiscovered();
    const [tid, ...more] = threadsNamed("mcp:1");
    expect(more).toEqual([]);
    const crashedPid = status("later")?.pid;
    await sink.run("mcp__later__crash");
    await waitFor(() => status("later")?.state === "failed" && status("later")?.pid === null, 10_000, "the crashed server closed");
    expect((await descendants()).map((p) => p.pid)).not.toContain(crashedPid);
    expect(threadsNamed("mcp:1")).toEqual([tid]);
    expect(await sink.run("mcp__steady__add", { a: 4, b: 5 })).toEqual({ success: true, result: "9" });
  });
});

describe("a worker thread that leaves a request unanswered", () => {
  it("is no longer trusted: the request fails, every member hears why, none may join; it still closes its servers in order", async () => {
    let ended = false;
    const thread = new McpThread("t", 0, () => (ended = true));
    const lost: string[] = [];
    const member = (name: string) => ({ onEvent: () => {}, onThreadLost: (why: string) => void lost.push(`${name}: ${why}`) });
    const hanging = thread.join(member("hanging"));
    const sibling = thread.join(member("sibling"));
    const cfg = fakeServer("hang");
    const params = {
      server: "hanging",
      stdio: { command: cfg.command as string, args: cfg.args, env: {}, groupNice: null },
      connectTimeoutMs: 30_000,
      listTimeoutMs: 30_000,
      maxResultChars: 1_000,
    };
    try {
      // The worker answers a connect within connectTimeoutMs; the main thread gives it far less here.
      const { reply } = thread.send(hanging, { op: "connect", params }, 1_500);
      await expect(reply).rejects.toThrow(/did not answer "connect" within 2 s/);
      expect(lost).toEqual(['hanging: the MCP worker did not answer "connect" within 2 s', 'sibling: the MCP worker did not answer "connect" within 2 s']);
      expect(thread.healthy).toBe(false);
      expect(() => thread.join(member("late"))).toThrow(/takes no new servers/);
      // Lost, not dead: it can still close the hanging server's client and reap its process.
      expect(thread.alive).toBe(true);
      expect(await thread.send(hanging, { op: "close" }, 15_000).reply).toEqual({ reaped: true });
      await thread.leave(hanging);
      expect(ended).toBe(false);
    } finally {
      await thread.leave(hanging);
      await thread.leave(sibling);
    }
    expect(ended).toBe(true);
  });
});
