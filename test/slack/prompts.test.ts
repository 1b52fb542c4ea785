/**
 * Block Kit approval and clarify prompts: the buttons carry the gateway's
 * ids, a click is delivered and acknowledged after the commit, a refusal
 * reaches only the clicker (ephemeral), and a decided prompt shows the
 * outcome and who decided in place of its buttons.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChatRef, DeliverResult } from "../../adapters/types.js";
import { sleepMs } from "../fakes/recording-sink.js";
import { blockAction, CHANNEL } from "../fakes/slack-events.js";
import { BOB } from "../fakes/slack-state.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const chat: ChatRef = { platform: "slack", chatId: CHANNEL, chatType: "group", threadId: "1700000000.000001" };

interface Block {
  type: string;
  text?: { text: string };
  elements?: { action_id: string; value: string; style?: string; text: { text: string } }[];
}
const blocksOf = (ts: string): Block[] => (h!.fake.state.find(CHANNEL, ts)?.blocks ?? []) as Block[];

async function click(ts: string, actionId: string, user = BOB, reply?: DeliverResult) {
  if (reply) h!.sink.behaviour = async () => reply;
  const env = h!.fake.socket.pushInteractive(blockAction({ user, messageTs: ts, threadTs: chat.threadId, actionId }));
  await h!.fake.socket.until(() => Boolean(h!.fake.socket.acked(env.envelope_id)), "the click's ack");
  return env;
}

describe("approval prompts", () => {
  it("shows the command and reason with Allow Once / Session / Always / Deny buttons carrying the gateway's ids", async () => {
    h = await startHarness();
    const sent = await h.adapter.sendApproval(chat, {
      requestId: "r1",
      command: "rm -rf /tmp/x && echo <done>",
      description: "recursive delete",
      choices: ["once", "session", "always", "deny"],
    });
    const [ts] = sent.messageIds;
    const post = h.fake.callsTo("chat.postMessage")[0];
    expect(post?.params.thread_ts).toBe(chat.threadId);
    expect(String(post?.params.text)).toContain("Command approval required");
    const [section, actions] = blocksOf(ts as string);
    expect(section?.text?.text).toContain("*Command Approval Required*");
    expect(section?.text?.text).toContain("rm -rf /tmp/x &amp;&amp; echo &lt;done&gt;");
    expect(section?.text?.text).toContain("Reason: recursive delete");
    expect(actions?.elements?.map((e) => [e.action_id, e.text.text, e.style])).toEqual([
      ["ap:r1:once", "Allow Once", "primary"],
      ["ap:r1:session", "Allow Session", undefined],
      ["ap:r1:always", "Always Allow", undefined],
      ["ap:r1:deny", "Deny", "danger"],
    ]);
  });

  it("delivers a click, then shows the outcome and who decided in place of the buttons", async () => {
    h = await startHarness();
    const [ts] = (await h.adapter.sendApproval(chat, { requestId: "r2", command: "ls", description: "d", choices: ["once", "deny"] })).messageIds;
    await click(ts as string, "ap:r2:once", BOB, { status: "action", reply: { text: "✅ Approved once" } });
    expect(h.sink.committed[0]).toMatchObject({
      kind: "action",
      actionId: "ap:r2:once",
      messageId: ts,
      sender: { userId: BOB.id, displayName: BOB.name },
      chat: { chatId: CHANNEL, threadId: chat.threadId },
    });
    await h.adapter.resolveApproval(chat, ts as string, "✅ Approved once by bob");
    const blocks = blocksOf(ts as string);
    expect(blocks.map((b) => b.type)).toEqual(["section", "context"]);
    expect(blocks[0]?.text?.text).toContain("Command Approval Required");
    expect(JSON.stringify(blocks[1])).toContain("Approved once by bob");
    expect(h.fake.state.ephemerals).toHaveLength(0);
  });

  it("tells an unauthorized clicker alone (ephemeral) and leaves the prompt as it was", async () => {
    h = await startHarness();
    const [ts] = (await h.adapter.sendApproval(chat, { requestId: "r3", command: "ls", description: "d", choices: ["once", "deny"] })).messageIds;
    await click(ts as string, "ap:r3:once", BOB, { status: "action", reply: { text: "⛔ You are not authorized to approve commands.", alert: true } });
    await h.fake.waitFor((c) => c.method === "chat.postEphemeral" && c.status === 200);
    expect(h.fake.state.ephemerals).toEqual([
      { channel: CHANNEL, user: BOB.id, text: "⛔ You are not authorized to approve commands.", threadTs: chat.threadId },
    ]);
    await sleepMs(100);
    expect(h.fake.callsTo("chat.update")).toHaveLength(0);
    expect(blocksOf(ts as string).map((b) => b.type)).toEqual(["section", "actions"]);
  });
});

describe("clarify prompts", () => {
  it("offers the choices as buttons and, once answered, shows the answer instead", async () => {
    h = await startHarness();
    const [ts] = (await h.adapter.sendClarify(chat, { requestId: "q1", question: "Which one?", choices: ["Red", "Blue"], allowFreeText: true })).messageIds;
    const [section, actions] = blocksOf(ts as string);
    expect(section?.text?.text).toContain("Which one?");
    expect(actions?.elements?.map((e) => [e.action_id, e.text.text])).toEqual([
      ["cl:q1:0", "Red"],
      ["cl:q1:1", "Blue"],
    ]);
    const env = h.fake.socket.pushInteractive({
      ...blockAction({ user: BOB, messageTs: ts as string, actionId: "cl:q1:1" }),
      actions: [{ action_id: "cl:q1:1", block_id: "b", type: "button", value: "cl:q1:1", text: { type: "plain_text", text: "Blue" }, action_ts: "1" }],
    });
    h.sink.behaviour = async () => ({ status: "action", reply: { text: "✅ Answer sent." } });
    await h.fake.socket.until(() => Boolean(h!.fake.socket.acked(env.envelope_id)), "the ack");
    await h.fake.waitFor((c) => c.method === "chat.update" && c.status === 200);
    const blocks = blocksOf(ts as string);
    expect(blocks.map((b) => b.type)).toEqual(["section", "context"]);
    expect(JSON.stringify(blocks[1])).toContain("Blue — answered by bob");
  });
});
