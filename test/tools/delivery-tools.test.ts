/**
 * send_message and cronjob as the model calls them: argument checks, what
 * they ask of ctx.messenger / ctx.cron, and results the model can act on.
 */
import { describe, expect, it } from "vitest";
import type { CronControl, CronJobView, Messenger, ToolContext } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import { createCronjobTool } from "../../tools/cron/index.js";
import { createSendMessageTool } from "../../tools/messaging/index.js";
import { makeContext } from "./approval-helpers.js";
import { callTool } from "./call-tool.js";

const signal = () => new AbortController().signal;
const parse = (s: string) => JSON.parse(s) as Record<string, unknown>;

function withCtx(extra: Partial<ToolContext>): ToolContext {
  return { ...makeContext(), ...extra };
}

describe("send_message", () => {
  const sent: [string, string][] = [];
  const messenger: Messenger = {
    targets: () => [{ target: "origin", description: "this chat" }],
    send: async (target, text) => {
      sent.push([target, text]);
      return target === "telegram:9" ? { ok: false, error: "not allowed" } : { ok: true, target: "telegram:1", messageIds: ["5"] };
    },
  };
  const tool = createSendMessageTool();

  it("lists targets, sends, and reports a refusal", async () => {
    expect(parse(await callTool(tool, { action: "list" }, withCtx({ messenger }), signal()))).toEqual({
      success: true,
      targets: [{ target: "origin", description: "this chat" }],
    });
    expect(parse(await callTool(tool, { target: "origin", message: "hi" }, withCtx({ messenger }), signal()))).toEqual({
      success: true,
      sent: true,
      target: "telegram:1",
      message_ids: ["5"],
    });
    expect(parse(await callTool(tool, { target: "telegram:9", message: "hi" }, withCtx({ messenger }), signal()))).toEqual({
      success: false,
      error: "not allowed",
    });
    expect(sent).toEqual([
      ["origin", "hi"],
      ["telegram:9", "hi"],
    ]);
  });

  it("asks for what is missing, and says when nothing delivers messages here", async () => {
    expect(parse(await callTool(tool, { message: "hi" }, withCtx({ messenger }), signal())).error).toContain("target");
    expect(parse(await callTool(tool, { target: "origin", message: "  " }, withCtx({ messenger }), signal())).error).toContain("message");
    expect(parse(await callTool(tool, { action: "shout" }, withCtx({ messenger }), signal())).error).toBe(
      'Invalid arguments for send_message: $.action: must be one of "send", "list", got "shout". Fix the arguments and call the tool again.',
    );
    expect(parse(await callTool(tool, { target: "origin", message: "hi" }, makeContext(), signal())).error).toContain("not available here");
  });
});

describe("cronjob", () => {
  const job: CronJobView = {
    id: "ab12cd34",
    name: "n",
    prompt: "p",
    schedule: "every 1h",
    timezone: null,
    deliver: "origin",
    model: null,
    timeoutS: null,
    paused: false,
    nextRun: "2026-01-01T00:00:00.000Z",
    lastRun: null,
  };
  const calls: unknown[][] = [];
  const cron: CronControl = {
    list: () => [job],
    create: (input) => (calls.push(["create", input]), job),
    update: (id, input) => (calls.push(["update", id, input]), job),
    pause: (id) => (calls.push(["pause", id]), { ...job, paused: true }),
    resume: (id) => (calls.push(["resume", id]), job),
    remove: (id) => void calls.push(["remove", id]),
    runNow: (id) => {
      if (id === "nope") throw new HermesError("HGW_ERR_CRON_NOT_FOUND", '("nope")');
      calls.push(["run", id]);
      return job;
    },
  };
  const tool = createCronjobTool();
  const run = async (args: Record<string, unknown>, ctx: ToolContext = withCtx({ cron })) => parse(await callTool(tool, args, ctx, signal()));

  it("passes each action through, in the model's words", async () => {
    expect(await run({ action: "create", prompt: "check disks", schedule: "every 1h", timeout_s: 60, model: null })).toMatchObject({
      success: true,
      created: { job_id: "ab12cd34", next_run: job.nextRun },
    });
    expect(await run({ action: "list" })).toMatchObject({ success: true, jobs: [{ job_id: "ab12cd34" }] });
    expect(await run({ action: "update", job_id: "ab12cd34", deliver: "telegram" })).toMatchObject({ success: true });
    expect(await run({ action: "pause", job_id: "ab12cd34" })).toMatchObject({ paused: { paused: true } });
    expect(await run({ action: "resume", job_id: "ab12cd34" })).toMatchObject({ success: true });
    expect(await run({ action: "run", job_id: "ab12cd34" })).toMatchObject({ success: true, queued: { job_id: "ab12cd34" } });
    expect(await run({ action: "remove", job_id: "ab12cd34" })).toEqual({ success: true, removed: "ab12cd34" });
    expect(calls).toEqual([
      ["create", { prompt: "check disks", schedule: "every 1h", timeoutS: 60, model: null }],
      ["update", "ab12cd34", { deliver: "telegram" }],
      ["pause", "ab12cd34"],
      ["resume", "ab12cd34"],
      ["run", "ab12cd34"],
      ["remove", "ab12cd34"],
    ]);
  });

  it("turns refusals into results, and asks for a job id", async () => {
    expect(await run({ action: "run", job_id: "nope" })).toEqual({ success: false, error: expect.stringContaining("No scheduled job with that id") });
    expect((await run({ action: "pause" })).error).toContain("job_id");
    expect((await run({ action: "create", prompt: "x", schedule: "every 1h", timeout_s: 1 })).error).toContain(
      "Invalid arguments for cronjob: $.timeout_s: does not match any of the 2 allowed shapes (anyOf) — shape 1: $.timeout_s must be >= 10, got 1; shape 2: $.timeout_s expected null, got integer 1",
    );
    expect((await run({ action: "list" }, makeContext())).error).toContain("not available here");
  });
});
