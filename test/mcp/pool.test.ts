/**
 * The worker pool and a shared thread, driven directly: servers placed by
 * load, a thread that reports an uncaught error fails every server in it
 * (each is then closed in order, its process reaped) and takes no new ones,
 * and a thread ends only after its last server has left.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { WorkerEvent } from "../../tools/mcp/protocol.js";
import { type ChannelHandlers, ServerChannel } from "../../tools/mcp/server-channel.js";
import { McpWorkerPool } from "../../tools/mcp/worker-pool.js";
import { McpThread } from "../../tools/mcp/worker-thread.js";
import { descendants, fakeServer, waitFor } from "./helpers.js";

const open: ServerChannel[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  expect(await descendants()).toEqual([]);
});

class Recorder implements ChannelHandlers {
  readonly events: WorkerEvent[] = [];
  lost: string | null = null;
  onEvent(event: WorkerEvent): void {
    this.events.push(event);
  }
  onExit(why: string): void {
    this.lost = why;
  }
}

function connectParams(server: string) {
  const c = fakeServer("normal");
  const stdio = { command: c.command ?? "", args: [...c.args], env: {}, groupNice: null };
  return { server, stdio, connectTimeoutMs: 20_000, listTimeoutMs: 20_000, maxResultChars: 10_000 };
}

function track(channel: ServerChannel): ServerChannel {
  open.push(channel);
  return channel;
}

describe("McpWorkerPool", () => {
  it("fills empty threads first, then up to its size, then the least loaded", () => {
    const pool = new McpWorkerPool(2, 0);
    const a = track(pool.open("a", new Recorder()));
    const b = track(pool.open("b", new Recorder()));
    const c = track(pool.open("c", new Recorder()));
    expect([a.threadLabel, b.threadLabel, c.threadLabel]).toEqual(["1", "2", "1"]);
    expect(pool.threadLoads()).toEqual([
      { label: "1", servers: 2 },
      { label: "2", servers: 1 },
    ]);
  });

  it("refuses a size below one", () => {
    expect(() => new McpWorkerPool(0, 0)).toThrow(/at least one thread/);
  });
});

describe("a shared worker thread", () => {
  it("fails every server in it when it reports an uncaught error; they close in order and the thread ends last", async () => {
    let ended = false;
    const thread = new McpThread("7", 0, () => {
      ended = true;
    });
    const first = new Recorder();
    const second = new Recorder();
    const a = track(new ServerChannel(thread, "a", first));
    const b = track(new ServerChannel(thread, "b", second));
    await Promise.all([a.connect(connectParams("a")), b.connect(connectParams("b"))]);
    const pids = [a.pid, b.pid];
    expect(pids.every((p) => typeof p === "number" && p > 0)).toBe(true);

    // A request the worker has no handler for throws inside its message handler: an error nothing catches.
    thread.post({ op: "no-such-op", host: 1 } as never);
    await waitFor(() => first.lost !== null && second.lost !== null, 10_000, "both servers to hear of the failure");
    expect(first.lost).toMatch(/^worker error: /);
    expect(second.lost).toBe(first.lost);
    expect(a.reusable).toBe(false);
    expect(thread.healthy).toBe(false);
    expect(() => new ServerChannel(thread, "c", new Recorder())).toThrow(/takes no new servers/);

    // The thread still runs, so it closes its servers itself; it ends only after the last one left.
    const closedA = await a.close();
    expect(closedA).toMatchObject({ leftover: "gone", problem: null });
    expect(ended).toBe(false);
    expect(thread.alive).toBe(true);
    const closedB = await b.close();
    expect(closedB).toMatchObject({ leftover: "gone", problem: null });
    expect(ended).toBe(true);
    expect(thread.alive).toBe(false);
    const left = (await descendants()).map((p) => p.pid);
    for (const pid of pids) expect(left).not.toContain(pid);
  });

  it("keeps serving the other servers when one of them closes", async () => {
    const thread = new McpThread("8", 0, () => undefined);
    const a = track(new ServerChannel(thread, "a", new Recorder()));
    const b = track(new ServerChannel(thread, "b", new Recorder()));
    await Promise.all([a.connect(connectParams("a")), b.connect(connectParams("b"))]);
    await a.close();
    expect(thread.alive).toBe(true);
    const result = await b.call("add", { a: 2, b: 2 }, 10_000, new AbortController().signal);
    expect(JSON.parse(result)).toEqual({ success: true, result: "4" });
  });
});
