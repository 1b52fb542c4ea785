import { afterEach, describe, expect, it } from "vitest";
import { clarifyActionId } from "../../adapters/types.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { type Harness, makeHarness } from "./helpers/harness.js";
import { completed, ScriptedRunner } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const asking = () =>
  new ScriptedRunner(async (req, signal) => {
    const a = await req.tools.clarifier.ask({ question: "Which colour?", choices: ["red", "blue"], allowFreeText: true }, signal);
    return completed(req, a.kind === "answer" ? `picked ${a.text} (by ${a.by})` : `no answer: ${a.kind}`);
  });

describe("clarifying questions", () => {
  it("takes a choice button, and a second click only hears it was answered", async () => {
    h = await makeHarness({ runner: asking() });
    await h.adapter.message("paint it");
    const q = await h.adapter.waitFor((o) => o.type === "clarify");
    if (q.type !== "clarify") throw new Error("unreachable");
    expect(q.prompt).toMatchObject({ question: "Which colour?", choices: ["red", "blue"] });
    expect(await h.adapter.click(clarifyActionId(q.prompt.requestId, 1), { user: "alice" })).toEqual({ text: "✅ Answer sent.", alert: false });
    await h.adapter.waitForText("picked blue (by alice)");
    expect(await h.adapter.click(clarifyActionId(q.prompt.requestId, 0))).toEqual({ text: TEXT.clarifyResolved, alert: true });
  });

  it("takes a typed number or free text as the answer, not as a new turn", async () => {
    h = await makeHarness({ runner: asking() });
    await h.adapter.message("paint it");
    await h.adapter.waitFor((o) => o.type === "clarify");
    await h.adapter.message("2");
    await h.adapter.waitForText("picked blue");
    await h.adapter.message("paint it again");
    await h.adapter.waitFor((o) => o.type === "clarify" && h!.adapter.of("clarify").length === 2);
    await h.adapter.message("sea green");
    await h.adapter.waitForText("picked sea green");
    expect((h.runner as ScriptedRunner).calls).toHaveLength(2);
  });

  it("asks in plain text without buttons, and times out", async () => {
    h = await makeHarness({ runner: asking(), capabilities: { buttons: false }, config: { agent: { clarify_timeout_s: 0.2 } } });
    await h.adapter.message("paint it");
    await h.adapter.waitForText("❓ Which colour?\n1. red\n2. blue");
    await h.adapter.waitForText("no answer: timeout");
  });
});
