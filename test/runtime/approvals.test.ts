import { afterEach, describe, expect, it } from "vitest";
import { approvalActionId } from "../../adapters/types.js";
import type { ApprovalRequest } from "../../agent/types.js";
import { TEXT } from "../../gateway/runtime/texts.js";
import { createApprovalPolicy } from "../../tools/approval/index.js";
import type { Outbound } from "../fakes/test-adapter.js";
import { audit, type Harness, makeHarness, testConfig } from "./helpers/harness.js";
import { completed, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const never = new AbortController().signal;
const rm: ApprovalRequest = { command: "rm -rf build/", category: "recursive delete", description: "recursive delete", allowPermanent: true };

/** A turn whose one tool needs approval; the reply says what happened. */
function approvingRunner(req: ApprovalRequest = rm, times = 1) {
  return new ScriptedRunner(async (r, signal) => {
    const outcomes: string[] = [];
    for (let i = 0; i < times; i++) {
      const d = await r.tools.approver.request(req, signal);
      outcomes.push(`${d?.choice}${d?.reason ? ` (${d.reason})` : ""}`);
    }
    return completed(r, `outcome: ${outcomes.join(", ")}`);
  });
}

/**
 * A turn whose tool runs `rm -rf build/` `times` times through the real
 * approval policy (as the terminal tool does); the reply lists how each run
 * was decided (the policy's `via`).
 */
function policyRunner(times = 1) {
  const policy = createApprovalPolicy({ approvals: testConfig().approvals });
  return new ScriptedRunner(async (r, signal) => {
    const vias: string[] = [];
    for (let i = 0; i < times; i++) vias.push((await policy.check("rm -rf build/", r.tools, signal)).via);
    return completed(r, `via: ${vias.join(", ")}`);
  });
}

type ApprovalOut = Extract<Outbound, { type: "approval" }>;
const prompt = async (hh: Harness) => (await hh.adapter.waitFor((o) => o.type === "approval")) as ApprovalOut;

describe("approvals", () => {
  it("runs the command once approved with a button, shows who decided, and audits it", async () => {
    h = await makeHarness({ runner: approvingRunner() });
    await h.adapter.message({ text: "clean up", user: { id: "alice", name: "Alice" } });
    const p = await prompt(h);
    expect(p.prompt.choices).toEqual(["once", "session", "always", "deny"]);
    const shown = await h.adapter.click(approvalActionId(p.prompt.requestId, "once"), { user: { id: "alice", name: "Alice" }, messageId: p.messageId });
    expect(shown?.text).toBe("✅ Approved once");
    await h.adapter.waitForText("outcome: once");
    const resolved = await h.adapter.waitFor((o) => o.type === "resolve");
    expect(resolved).toMatchObject({ messageId: p.messageId, outcome: "✅ Approved once by Alice" });
    const rows = audit(h);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ requestId: p.prompt.requestId, choice: "once", decidedBy: "alice", command: "rm -rf build/" });
  });

  it("denies with /deny and relays the reason", async () => {
    h = await makeHarness({ runner: approvingRunner() });
    await h.adapter.message("clean up");
    await prompt(h);
    await h.adapter.message("/deny not on main");
    await h.adapter.waitForText('❌ Command denied. Reason relayed to the agent: "not on main"');
    await h.adapter.waitForText("outcome: deny (not on main)");
    expect(audit(h)[0]).toMatchObject({ choice: "deny", reason: "not on main" });
  });

  it("denies on timeout and marks the prompt", async () => {
    h = await makeHarness({ runner: approvingRunner(), config: { approvals: { timeout_s: 0.2 } } });
    await h.adapter.message("clean up");
    const p = await prompt(h);
    await h.adapter.waitForText("outcome: timeout");
    expect(await h.adapter.waitFor((o) => o.type === "resolve")).toMatchObject({ messageId: p.messageId, outcome: "⏱ Timed out — denied" });
    // A click after the timeout changes nothing.
    const late = await h.adapter.click(approvalActionId(p.prompt.requestId, "once"));
    expect(late).toEqual({ text: TEXT.approvalResolved, alert: true });
    expect(audit(h).map((a) => a.choice)).toEqual(["timeout"]);
  });

  it("resolves once: a second click only hears it was already resolved", async () => {
    h = await makeHarness({ runner: approvingRunner() });
    await h.adapter.message("clean up");
    const p = await prompt(h);
    const first = await h.adapter.click(approvalActionId(p.prompt.requestId, "deny"));
    const second = await h.adapter.click(approvalActionId(p.prompt.requestId, "once"));
    expect(first?.text).toBe("❌ Denied");
    expect(second).toEqual({ text: TEXT.approvalResolved, alert: true });
    await h.adapter.waitForText("outcome: deny");
    expect(audit(h)).toHaveLength(1);
  });

  it("refuses a click from an unauthorized user and changes nothing", async () => {
    h = await makeHarness({
      runner: approvingRunner(),
      platform: "telegram",
      config: { gateway: { allow_all_users: false, platforms: { telegram: { allowed_users: ["alice"] } } } },
    });
    await h.adapter.message({ text: "clean up", user: "alice", chatId: "g1", chatType: "group" });
    const p = await prompt(h);
    const mallory = await h.adapter.click(approvalActionId(p.prompt.requestId, "once"), { user: "mallory", chatId: "g1", chatType: "group" });
    expect(mallory).toEqual({ text: TEXT.approvalUnauthorized, alert: true });
    await wait(50, never);
    expect(h.adapter.texts().some((t) => t.startsWith("outcome"))).toBe(false);
    expect(h.adapter.of("resolve")).toHaveLength(0);
    expect(audit(h, "agent:main:telegram:group:g1:alice")).toHaveLength(0);
    await h.adapter.click(approvalActionId(p.prompt.requestId, "deny"), { user: "alice", chatId: "g1", chatType: "group" });
    await h.adapter.waitForText("outcome: deny");
  });

  it("takes a plain 'yes' while an approval waits", async () => {
    h = await makeHarness({ runner: approvingRunner() });
    await h.adapter.message("clean up");
    await prompt(h);
    await h.adapter.message("yes");
    await h.adapter.waitForText(TEXT.approved("once", 1));
    await h.adapter.waitForText("outcome: once");
  });

  it("/approve session approves the same kind of command for the rest of the session, and /new forgets it", async () => {
    h = await makeHarness({ runner: policyRunner(2) });
    await h.adapter.message("clean up twice");
    await prompt(h);
    await h.adapter.message("/approve session");
    await h.adapter.waitForText("via: session_choice, session");
    expect(h.adapter.of("approval")).toHaveLength(1);
    expect(audit(h).map((a) => [a.decidedBy, a.choice])).toEqual([["alice", "session"]]); // a person's decision, once
    await h.adapter.message("/new");
    await h.adapter.waitForText(TEXT.newSession);
    await h.adapter.message("clean up again");
    const prompts = (n: number) => h!.adapter.waitFor(() => h!.adapter.of("approval").length === n);
    await prompts(2); // asked again: the new session has approved nothing
    await h.adapter.message("/deny");
    await prompts(3);
    await h.adapter.message("/deny");
    await h.adapter.waitForText("via: deny, deny");
  });

  it("narrows 'always' to the session when permanent approval is not allowed", async () => {
    h = await makeHarness({ runner: approvingRunner({ ...rm, allowPermanent: false }) });
    await h.adapter.message("clean up");
    const p = await prompt(h);
    expect(p.prompt.choices).toEqual(["once", "session", "deny"]);
    await h.adapter.message("/approve always");
    await h.adapter.waitForText("outcome: session");
  });

  it("/yolo auto-approves without a prompt until it is toggled off, and /status shows it", async () => {
    h = await makeHarness({ runner: policyRunner() });
    await h.adapter.message("/yolo");
    await h.adapter.waitForText(TEXT.yoloOn);
    await h.adapter.message("/status");
    await h.adapter.waitForText(/YOLO: on/);
    await h.adapter.message("clean up");
    await h.adapter.waitForText("via: yolo");
    expect(h.adapter.of("approval")).toHaveLength(0);
    await h.adapter.message("/yolo");
    await h.adapter.waitForText(TEXT.yoloOff);
    await h.adapter.message("clean up again");
    await prompt(h);
  });

  it("falls back to a text prompt without buttons, answered by /approve", async () => {
    h = await makeHarness({ runner: approvingRunner(), capabilities: { buttons: false } });
    await h.adapter.message("clean up");
    await h.adapter.waitForText("Dangerous command requires approval");
    await h.adapter.message("/approve");
    await h.adapter.waitForText("outcome: once");
  });

  it("denies the waiting approval when the turn is stopped", async () => {
    h = await makeHarness({ runner: approvingRunner() });
    await h.adapter.message("clean up");
    await prompt(h);
    await h.adapter.message("/stop");
    await h.adapter.waitForText(TEXT.stopped);
    await h.adapter.waitFor((o) => o.type === "resolve");
    expect(audit(h)[0]).toMatchObject({ choice: "deny", reason: "the turn was stopped" });
    await wait(30, never);
    expect(h.adapter.texts().some((t) => t.startsWith("outcome"))).toBe(false);
  });

  it("pauses typing while waiting for a decision", async () => {
    h = await makeHarness({ runner: approvingRunner() });
    await h.adapter.message("clean up");
    await prompt(h);
    const typingBefore = h.adapter.of("typing").length;
    await wait(2300, never);
    expect(h.adapter.of("typing").length).toBe(typingBefore);
    await h.adapter.message("/approve");
    await h.adapter.waitForText("outcome: once");
  });
});
