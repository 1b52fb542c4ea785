/**
 * The API platform's reply stream: deltas to the requests a reply answers,
 * replaced text appended after a blank line, and the whole text for a
 * request that joined the reply only at its end.
 */
import { describe, expect, it } from "vitest";
import { PendingReplies, type ReplyOutcome } from "../../adapters/api/pending-replies.js";
import { ApiReplyStream } from "../../adapters/api/reply-stream.js";

function waiting(replies: PendingReplies, id: string, streaming: boolean) {
  const deltas: string[] = [];
  const w = replies.expect(id, "session", 5_000, streaming ? (d) => deltas.push(d) : undefined);
  return { deltas, result: w.result as Promise<ReplyOutcome> };
}

describe("ApiReplyStream", () => {
  it("sends each request only what is new; a replaced text follows after a blank line; finish sends the rest", async () => {
    const replies = new PendingReplies();
    const a = waiting(replies, "a", true);
    const s = new ApiReplyStream(replies, ["a"]);
    s.update("Let me");
    s.update("Let me check.");
    s.update("Found"); // the model called a tool; its next response starts afresh
    s.update("Found 3");
    await s.finish("Found 3 files.", undefined, ["a"]);
    expect(a.deltas).toEqual(["Let me", " check.", "\n\nFound", " 3", " files."]);
    expect(await a.result).toEqual({ kind: "reply", text: "Found 3 files.", streamed: true });
  });

  it("gives the whole text to a request answered only at the end, and to a request that does not stream", async () => {
    const replies = new PendingReplies();
    const first = waiting(replies, "first", true);
    const queued = waiting(replies, "queued", true);
    const plain = waiting(replies, "plain", false);
    const s = new ApiReplyStream(replies, ["first", "plain"]);
    s.update("Hello");
    await s.finish("Hello there", undefined, ["first", "queued", "plain"]);
    expect(queued.deltas).toEqual([]);
    expect(await queued.result).toEqual({ kind: "reply", text: "Hello there", streamed: false });
    expect(await plain.result).toEqual({ kind: "reply", text: "Hello there", streamed: false });
    expect(await first.result).toMatchObject({ streamed: true });
  });

  it("stops sending once cancelled (an interrupted turn); its requests wait for the reply that answers them", () => {
    const replies = new PendingReplies();
    const a = waiting(replies, "a", true);
    const s = new ApiReplyStream(replies, ["a"]);
    s.update("partial");
    s.cancel();
    s.update("partial and more");
    expect(a.deltas).toEqual(["partial"]);
    expect(replies.size).toBe(1);
    replies.cancelAll();
  });
});

describe("PendingReplies going quiet", () => {
  it("ends with no reply only the requests of that conversation whose message the gateway accepted", async () => {
    const replies = new PendingReplies();
    const accepted = replies.expect("accepted", "s1", 5_000);
    const delivering = replies.expect("delivering", "s1", 5_000);
    const elsewhere = replies.expect("elsewhere", "s2", 5_000);
    replies.accepted("accepted");
    replies.accepted("elsewhere");
    expect(replies.endQuiet("s1")).toBe(1);
    expect(await accepted.result).toEqual({ kind: "silent" });
    // Still on its way in: the quiet came from earlier work of its conversation.
    expect(replies.size).toBe(2);
    delivering.cancel();
    elsewhere.cancel();
    expect(await elsewhere.result).toEqual({ kind: "cancelled" });
  });
});
