/**
 * Durable ingress, with real crashes: a child process runs the runtime over a
 * SQLite file; the test SIGKILLs it in the middle of turns (twice), restarts
 * it, re-delivers every event as a platform would, and checks that every
 * committed message was answered exactly once and no reply was sent twice.
 * A second case dies right after a turn's commit, before its reply is sent:
 * the reply goes out at the next start and the turn does not run again.
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../gateway/store/index.js";

const CHILD = fileURLToPath(new URL("./fixtures/durable-child.ts", import.meta.url));

interface ChildMsg {
  readonly type: string;
  readonly text?: string;
  readonly eventId?: string;
  readonly status?: string;
}

class Gateway {
  readonly child: ChildProcess;
  readonly seen: ChildMsg[] = [];
  private waiters: { pred: (m: ChildMsg) => boolean; resolve: (m: ChildMsg) => void }[] = [];
  readonly exited: Promise<number | null>;

  constructor(env: Record<string, string>) {
    this.child = fork(CHILD, [], { execArgv: ["--import", "tsx"], env: { ...process.env, ...env }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.exited = new Promise((r) => this.child.once("exit", (code) => r(code)));
    this.child.on("message", (m: ChildMsg) => {
      this.seen.push(m);
      for (const w of [...this.waiters]) {
        if (w.pred(m)) {
          this.waiters = this.waiters.filter((x) => x !== w);
          w.resolve(m);
        }
      }
    });
  }

  waitFor(pred: (m: ChildMsg) => boolean, timeoutMs = 15_000): Promise<ChildMsg> {
    const hit = this.seen.find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`child never sent a matching message; saw ${JSON.stringify(this.seen.slice(-5))}`)), timeoutMs);
      this.waiters.push({ pred, resolve: (m) => (clearTimeout(t), resolve(m)) });
    });
  }

  async deliverAll(specs: readonly { eventId: string; text: string; user: string }[]): Promise<string[]> {
    for (const spec of specs) this.child.send({ type: "deliver", spec });
    const acks = await Promise.all(specs.map((s) => this.waitFor((m) => m.type === "ack" && m.eventId === s.eventId)));
    return acks.map((a) => a.status ?? "");
  }

  async kill(): Promise<void> {
    this.child.kill("SIGKILL");
    await this.exited;
  }
}

let dir: string | undefined;
let live: Gateway | undefined;
afterEach(async () => {
  if (live && live.child.exitCode === null && live.child.signalCode === null) await live.kill();
  live = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("durable ingress across SIGKILL", () => {
  it("answers every committed message exactly once and never resends a reply", async () => {
    dir = mkdtempSync(join(tmpdir(), "hgw-durable-"));
    const env = { HGW_DB: join(dir, "state.db"), HGW_OUTBOX: join(dir, "outbox.jsonl"), HGW_HOME: dir };
    writeFileSync(env.HGW_OUTBOX, "");
    const specs = Array.from({ length: 8 }, (_, i) => ({ eventId: `e${i}`, text: `m${i}`, user: `chat${i % 4}` }));
    const start = async () => {
      live = new Gateway(env);
      await live.waitFor((m) => m.type === "ready");
      return live;
    };

    /**
     * The messages not yet marked done, oldest first, read from the database after a kill. The turn
     * cut off is among them; so, at most, is the one before it: the next turn (another chat) takes the
     * turn slot as soon as that one's agent is done, a moment before that one commits. (A turn that did
     * commit may still have had its reply queued: the next start sends it, which the counts below check.)
     */
    const unfinishedAfterKill = (cutOff: string): string[] => {
      const store = openStore(env.HGW_DB);
      try {
        const texts = store.inbound.unfinished().map((r) => specs.find((s) => s.eventId === r.eventId)?.text ?? r.eventId);
        const at = texts.indexOf(cutOff);
        expect(at, `${cutOff} is unfinished`).toBeGreaterThanOrEqual(0);
        expect(at, "at most the turn before the cut-off one is unfinished besides it").toBeLessThanOrEqual(1);
        expect(texts.slice(at)).toEqual(specs.slice(specs.findIndex((s) => s.text === cutOff)).map((s) => s.text));
        return texts;
      } finally {
        store.close();
      }
    };

    // Run 1: everything is committed, then the process dies in the middle of the third turn.
    let gw = await start();
    expect(await gw.deliverAll(specs)).toEqual(specs.map(() => "accepted"));
    await gw.waitFor((m) => m.type === "sent" && m.text === "⚙️ work: m2");
    await gw.kill();
    let unfinished = unfinishedAfterKill("m2");

    // Run 2: the platform re-delivers everything (nothing new is accepted); die again mid-turn.
    gw = await start();
    expect(await gw.deliverAll(specs)).toEqual(specs.map(() => "duplicate"));
    // The oldest unfinished turn runs first, and a finished one never again (no reply or progress line
    // is sent twice: see the counts below).
    expect((await gw.waitFor((m) => m.type === "turn")).text).toBe(unfinished[0]);
    await gw.waitFor((m) => m.type === "sent" && m.text === "⚙️ work: m5");
    await gw.kill();
    unfinished = unfinishedAfterKill("m5");

    // Run 3: recover the rest, then stop gracefully.
    gw = await start();
    expect(await gw.deliverAll(specs)).toEqual(specs.map(() => "duplicate"));
    expect((await gw.waitFor((m) => m.type === "turn")).text).toBe(unfinished[0]);
    for (const s of specs.slice(5)) await gw.waitFor((m) => m.type === "sent" && m.text === `done: ${s.text}`);
    gw.child.kill("SIGTERM");
    expect(await gw.exited).toBe(0);

    const sent = readFileSync(env.HGW_OUTBOX, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { text: string; answers: string[] });
    for (const s of specs) {
      expect(
        sent.filter((m) => m.text === `done: ${s.text}`),
        `final reply to ${s.text}`,
      ).toHaveLength(1);
      expect(
        sent.filter((m) => m.text === `⚙️ work: ${s.text}`),
        `progress line of ${s.text}`,
      ).toHaveLength(1);
    }
    expect(sent).toHaveLength(16);
    const store = openStore(env.HGW_DB);
    try {
      expect(store.inbound.unfinished()).toEqual([]);
      expect(specs.map((_, i) => store.inbound.get(i + 1)?.status)).toEqual(specs.map(() => "done"));
    } finally {
      store.close();
    }
  }, 60_000);

  it("delivers a reply committed just before a crash at the next start, without running its turn again", async () => {
    dir = mkdtempSync(join(tmpdir(), "hgw-durable-"));
    const env = { HGW_DB: join(dir, "state.db"), HGW_OUTBOX: join(dir, "outbox.jsonl"), HGW_HOME: dir };
    writeFileSync(env.HGW_OUTBOX, "");
    const specs = [
      { eventId: "k0", text: "n0", user: "chatA" },
      { eventId: "k1", text: "n1", user: "chatB" },
    ];

    // Run 1 dies the moment n1's turn is committed and its reply is about to be sent.
    let gw = (live = new Gateway({ ...env, HGW_KILL_AT_FINAL: "k1" }));
    await gw.waitFor((m) => m.type === "ready");
    expect(await gw.deliverAll(specs)).toEqual(["accepted", "accepted"]);
    await gw.exited;
    expect(gw.child.signalCode).toBe("SIGKILL");
    const store = openStore(env.HGW_DB);
    try {
      expect(store.inbound.unfinished()).toEqual([]);
      expect(store.outbox.list().map((r) => [r.key, JSON.parse(r.reply).text])).toEqual([["test:k1:final:0", "done: n1"]]);
    } finally {
      store.close();
    }

    // Run 2 sends the queued reply at start; no turn runs again.
    gw = live = new Gateway(env);
    await gw.waitFor((m) => m.type === "ready");
    expect(await gw.deliverAll(specs)).toEqual(["duplicate", "duplicate"]);
    await gw.waitFor((m) => m.type === "sent" && m.text === "done: n1");
    gw.child.kill("SIGTERM");
    expect(await gw.exited).toBe(0);
    expect(gw.seen.filter((m) => m.type === "turn")).toEqual([]);

    const sent = readFileSync(env.HGW_OUTBOX, "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { text: string }).text);
    // Each once (n1's progress line may overtake n0's reply: the slot is free once n0's agent is done).
    expect([...sent].sort()).toEqual(["done: n0", "done: n1", "⚙️ work: n0", "⚙️ work: n1"].sort());
    const after = openStore(env.HGW_DB);
    try {
      expect(after.outbox.list()).toEqual([]);
      expect(after.inbound.unfinished()).toEqual([]);
    } finally {
      after.close();
    }
  }, 60_000);
});
