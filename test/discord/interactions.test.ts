/**
 * Buttons and slash commands: acknowledged within Discord's 3 seconds
 * whatever the sink takes, delivered as actions and command messages, the
 * gateway's answer to a click shown only to the clicker, a command's
 * "thinking" placeholder replaced by its reply.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { InboundAction, InboundMessage } from "../../adapters/types.js";
import { ADA, BOB, GENERAL, GUILD_ID } from "../fakes/discord-state.js";
import { GENERAL_CHAT, type Harness, sleepMs, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function promptMessage(): Promise<string> {
  const { messageIds } = await h!.adapter.sendApproval(GENERAL_CHAT, { requestId: "r9", command: "ls", description: "test", choices: ["once", "deny"] });
  return messageIds[0] as string;
}

describe("Discord buttons", () => {
  it("acknowledges a click at once, even when the sink takes longer than 3 s, then shows the gateway's answer to the clicker only", async () => {
    h = await startHarness();
    const promptId = await promptMessage();
    h.sink.behaviour = async () => {
      await sleepMs(3300);
      return { status: "action", reply: { text: "✅ Approved once" } };
    };
    const click = h.fake.click(ADA, GENERAL, promptId, "ap:r9:once");
    await h.sink.until(() => h!.sink.committed.length === 1, 6000);
    await h.fake.waitFor((c) => c.route === "POST /webhooks/:id/:token" && c.status === 200);
    expect(click.callback?.type).toBe(6);
    expect((click.callback?.at ?? Infinity) - click.sentAt).toBeLessThan(1000);
    expect(click.ephemeral).toEqual(["✅ Approved once"]);
    const action = h.sink.committed[0] as InboundAction;
    expect(action).toMatchObject({
      kind: "action",
      eventId: click.id,
      actionId: "ap:r9:once",
      messageId: promptId,
      chat: { chatType: "group", chatId: GENERAL },
      sender: { userId: ADA.id },
    });
    // Nothing new in the channel: the answer was ephemeral.
    expect(h.fake.texts(GENERAL)).toHaveLength(1);
  });

  it("an unauthorized clicker gets the gateway's refusal as an ephemeral message and the prompt stays", async () => {
    h = await startHarness();
    const promptId = await promptMessage();
    h.sink.behaviour = async () => ({ status: "action", reply: { text: "⛔ You are not authorized to approve commands.", alert: true } });
    const click = h.fake.click(BOB, GENERAL, promptId, "ap:r9:once");
    await h.fake.waitFor((c) => c.route === "POST /webhooks/:id/:token" && c.status === 200);
    expect(click.ephemeral).toEqual(["⛔ You are not authorized to approve commands."]);
    expect(h.fake.state.list(GENERAL)[0]?.components).not.toEqual([]);
  });

  it("tells the clicker when the click could not be committed", async () => {
    h = await startHarness();
    const promptId = await promptMessage();
    h.sink.behaviour = async () => {
      throw new Error("store down");
    };
    const click = h.fake.click(ADA, GENERAL, promptId, "ap:r9:deny");
    await h.fake.waitFor((c) => c.route === "POST /webhooks/:id/:token" && c.status === 200);
    expect(click.ephemeral[0]).toMatch(/could not be processed/);
  });
});

describe("Discord slash commands", () => {
  it("registers the gateway's commands globally, or in the configured guilds", async () => {
    h = await startHarness();
    // Registered in the background after the start.
    await h.fake.waitFor((c) => c.route === "PUT /applications/:id/commands" && c.status === 200);
    expect(h.fake.state.commands.global.map((c) => (c as { name: string }).name)).toEqual(["new", "model"]);
    expect((h.fake.state.commands.global[1] as { options: unknown[] }).options).toEqual([{ type: 3, name: "args", description: "[name]", required: false }]);
    await h.close();
    h = await startHarness({ config: { command_guilds: [GUILD_ID] } });
    await h.fake.waitFor((c) => c.route === "PUT /applications/:id/guilds/:id/commands" && c.status === 200);
    expect(h.fake.state.commands.global).toEqual([]);
    expect(h.fake.state.commands.guilds.get(GUILD_ID)).toHaveLength(2);
  });

  it("delivers a slash command as the typed command and answers it in place of the thinking placeholder", async () => {
    h = await startHarness();
    await h.fake.waitFor((c) => c.route === "PUT /applications/:id/commands" && c.status === 200);
    const cmd = h.fake.slash(ADA, GENERAL, "model", "gpt-5");
    await h.sink.until(() => h!.sink.committed.length === 1);
    const event = h.sink.committed[0] as InboundMessage;
    expect(event).toMatchObject({
      kind: "message",
      eventId: cmd.id,
      messageId: cmd.id,
      text: "/model gpt-5",
      addressed: true,
      chat: { chatType: "group", chatId: GENERAL },
    });
    expect(cmd.callback?.type).toBe(5);
    const sent = await h.adapter.send(GENERAL_CHAT, { text: "Model switched to gpt-5.", answers: [cmd.id] });
    expect(sent.messageIds).toEqual([cmd.originalId]);
    expect(h.fake.texts(GENERAL)).toEqual(["Model switched to gpt-5."]);
    // Only the placeholder was used: a later send posts normally.
    await h.adapter.send(GENERAL_CHAT, { text: "another", answers: [cmd.id] });
    expect(h.fake.texts(GENERAL)).toEqual(["Model switched to gpt-5.", "another"]);
  });

  it("removes the placeholder of a command the gateway ignored", async () => {
    h = await startHarness();
    h.sink.behaviour = async () => ({ status: "ignored", reason: "unauthorized" });
    const cmd = h.fake.slash(BOB, GENERAL, "new");
    await h.fake.waitFor((c) => c.route === "DELETE /webhooks/:id/:token/messages/:id" && c.status === 204);
    expect(cmd.callback?.type).toBe(5);
    expect(h.fake.texts(GENERAL)).toEqual([]);
  });

  it("streams a command's reply into its placeholder", async () => {
    h = await startHarness();
    const cmd = h.fake.slash(ADA, GENERAL, "new");
    await h.sink.until(() => h!.sink.committed.length === 1);
    const stream = h.adapter.startStream(GENERAL_CHAT, { answers: [cmd.id] });
    stream.update("thinking about");
    await h.fake.waitFor((c) => c.route === "PATCH /webhooks/:id/:token/messages/:id" && c.status === 200);
    await sleepMs(80);
    stream.update("thinking about it more");
    const done = await stream.finish("Final answer.");
    expect(done.messageIds).toEqual([cmd.originalId]);
    expect(h.fake.texts(GENERAL)).toEqual(["Final answer."]);
  });
});
