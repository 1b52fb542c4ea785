/**
 * A reply longer than one Telegram message goes out as several sendMessage
 * calls. A part that fails for a while is retried by the adapter (the one
 * retry layer) on its own: the parts before it are never posted twice. When
 * a later part fails for good after the earlier ones were posted, the reply
 * keeps its key, so a later try cannot post them again. Real grammY client,
 * fake Bot API, real SQLite outbound ledger.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatRef } from "../../adapters/types.js";
import type { Egress } from "../../gateway/runtime/egress.js";
import { type EgressRig, egressOver } from "../fakes/dispatch-log.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
let rig: EgressRig | undefined;
afterEach(async () => {
  await h?.close();
  rig?.close();
  h = undefined;
  rig = undefined;
});

const DM: ChatRef = { platform: "telegram", chatId: "42", chatType: "dm" };
/** Three parts: each paragraph is close to Telegram's 4,096-character limit. */
const LONG = ["a", "b", "c"].map((c) => `${c.repeat(3_000)}`).join("\n\n");

/** `requestTimeoutS`: how long the adapter waits for an answer ("no-answer" parts take that long; 1 s leaves loaded CI room). */
async function setup(timing: { requestTimeoutS?: number } = {}): Promise<Egress> {
  // The adapter tries a part DEFAULT_TIMING.sendMaxAttempts (5) times; the gateway sends once.
  h = await startHarness({ config: { rate_limits: { per_chat_per_s: 50 }, streaming: { first_preview_ms: 0, edit_interval_ms: 30 } }, timing });
  rig = egressOver(h.adapter);
  return rig.egress;
}

const secondPart = (p: Record<string, unknown>) => String(p.text).startsWith("b");
const posted = () => h!.fake.state.messages(42).map((m) => String(m.text).slice(0, 1));

describe("a reply sent in several parts", () => {
  it("resumes after the parts already posted when a later part fails for a while", async () => {
    const egress = await setup();
    h!.fake.fail("sendMessage", { kind: "error", code: 502, description: "Bad Gateway" }, { times: 3, when: secondPart });
    const outcome = await egress.send(DM, { text: LONG }, "reply-1");
    expect(outcome.status).toBe("sent");
    expect(posted()).toEqual(["a", "b", "c"]);
    const statuses = h!.fake.callsTo("sendMessage").map((c) => `${String(c.payload.text).slice(0, 1)}${c.status}`);
    expect(statuses).toEqual(["a200", "b502", "b502", "b502", "b200", "c200"]);
    expect(outcome.status === "sent" && outcome.sent.messageIds).toEqual(["1", "2", "3"]);
  });

  it("keeps its key when it fails for good after a part was posted: a later try must not post that part again", async () => {
    const egress = await setup();
    h!.fake.fail("sendMessage", { kind: "error", code: 502, description: "Bad Gateway" }, { times: 100, when: secondPart });
    const outcome = await egress.send(DM, { text: LONG }, "reply-2");
    expect(outcome.status).toBe("failed");
    expect(posted()).toEqual(["a"]);
    // The same reply again (a re-run after a restart): nothing more is posted.
    expect((await egress.send(DM, { text: LONG }, "reply-2")).status).toBe("skipped");
    expect(posted()).toEqual(["a"]);
  });

  it("still frees the key when nothing was posted, so a later try may send it", async () => {
    const egress = await setup();
    // Every one of the adapter's five tries at the first part fails.
    h!.fake.fail("sendMessage", { kind: "error", code: 502, description: "Bad Gateway" }, { times: 5, when: (p) => String(p.text).startsWith("a") });
    expect((await egress.send(DM, { text: LONG }, "reply-3")).status).toBe("failed");
    expect(posted()).toEqual([]);
    expect((await egress.send(DM, { text: LONG }, "reply-3")).status).toBe("sent");
    expect(posted()).toEqual(["a", "b", "c"]);
  });

  it("goes on past a part that may have been posted (its answer timed out): that part once, the rest after it", async () => {
    const egress = await setup({ requestTimeoutS: 1 });
    h!.fake.fail("sendMessage", { kind: "no-answer" }, { times: 1, when: secondPart });
    const outcome = await egress.send(DM, { text: LONG }, "reply-6");
    expect(outcome.status).toBe("uncertain");
    expect(posted()).toEqual(["a", "b", "c"]);
    const statuses = h!.fake.callsTo("sendMessage").map((c) => `${String(c.payload.text).slice(0, 1)}${c.status}`);
    expect(statuses, "the part whose answer was lost is not sent again").toEqual(["a200", "b0", "c200"]);
    // The same reply again (a re-run after a restart): nothing more is posted.
    expect((await egress.send(DM, { text: LONG }, "reply-6")).status).toBe("skipped");
    expect(posted()).toEqual(["a", "b", "c"]);
  });

  it("goes on past a first part that may have been posted; a last such part ends the send as before", async () => {
    const egress = await setup({ requestTimeoutS: 1 });
    h!.fake.fail("sendMessage", { kind: "no-answer" }, { times: 1, when: (p) => String(p.text).startsWith("a") });
    expect((await egress.send(DM, { text: LONG }, "reply-7")).status).toBe("uncertain");
    expect(posted()).toEqual(["a", "b", "c"]);
    h!.fake.fail("sendMessage", { kind: "no-answer" }, { times: 1, when: (p) => String(p.text).startsWith("c") });
    expect((await egress.send(DM, { text: LONG }, "reply-8")).status).toBe("uncertain");
    expect(posted()).toEqual(["a", "b", "c", "a", "b", "c"]);
    expect(h!.fake.callsTo("sendMessage")).toHaveLength(6);
  });

  it("a streamed reply whose later part fails keeps its preview (the first part) and reports what was posted", async () => {
    const egress = await setup();
    const stream = h!.adapter.startStream(DM);
    stream.update("a draft");
    await h!.fake.waitFor((c) => c.method === "sendMessage");
    h!.fake.fail("sendMessage", { kind: "error", code: 502, description: "Bad Gateway" }, { times: 100, when: secondPart });
    const outcome = await egress.finishStream(DM, stream, LONG, "reply-4", []);
    expect(outcome).toMatchObject({ status: "failed", posted: ["1"] });
    // The preview was edited into the first part and stays; nothing else got through.
    expect(posted()).toEqual(["a"]);
    expect(String(h!.fake.state.messages(42)[0]?.text)).toMatch(/^a{3000}/);
    expect((await egress.send(DM, { text: LONG }, "reply-4")).status).toBe("skipped");
  });

  it("a streamed reply goes on past a later part that may have been posted: the parts after it are sent", async () => {
    const egress = await setup({ requestTimeoutS: 1 });
    const stream = h!.adapter.startStream(DM);
    stream.update("a draft");
    await h!.fake.waitFor((c) => c.method === "sendMessage");
    h!.fake.fail("sendMessage", { kind: "no-answer" }, { times: 1, when: secondPart });
    const outcome = await egress.finishStream(DM, stream, LONG, "reply-9", []);
    expect(outcome.status).toBe("uncertain");
    // The preview became the first part; the second was posted once (its answer lost); the third followed.
    expect(posted()).toEqual(["a", "b", "c"]);
    const statuses = h!.fake.callsTo("sendMessage").map((c) => `${String(c.payload.text).slice(0, 1)}${c.status}`);
    expect(statuses).toEqual(["a200", "b0", "c200"]);
    expect((await egress.send(DM, { text: LONG }, "reply-9")).status).toBe("skipped");
    expect(posted()).toEqual(["a", "b", "c"]);
  });

  it("counts an album and a file as parts: a failed upload after them resumes with that upload alone", async () => {
    const egress = await setup();
    const paths = ["one.png", "two.png", "report.pdf"].map((f) => join(h!.dir, f));
    for (const p of paths) await writeFile(p, randomBytes(512));
    const media = [
      { kind: "image" as const, path: paths[0] as string },
      { kind: "image" as const, path: paths[1] as string },
      { kind: "document" as const, path: paths[2] as string },
    ];
    h!.fake.fail("sendDocument", { kind: "error", code: 502, description: "Bad Gateway" }, { times: 2 });
    // Too long for a caption: the text is a message of its own, before the files.
    const outcome = await egress.send(DM, { text: `the files ${"with a long description ".repeat(50)}`, media }, "reply-5");
    expect(outcome.status).toBe("sent");
    const calls = h!.fake.calls.filter((c) => ["sendMessage", "sendMediaGroup", "sendDocument"].includes(c.method)).map((c) => `${c.method} ${c.status}`);
    expect(calls).toEqual(["sendMessage 200", "sendMediaGroup 200", "sendDocument 502", "sendDocument 502", "sendDocument 200"]);
    expect(outcome.status === "sent" && outcome.sent.messageIds).toHaveLength(4);
  });
});
