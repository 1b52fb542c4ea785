/**
 * The Discord adapter reports the REST request that posts a streamed reply's
 * preview as the shared contract says — a message created in the channel, or
 * a slash command's "… is thinking" placeholder replaced by the preview: once,
 * as it leaves discord.js's queue, with its text and whether the preview shows
 * all of it; not the edits after it. discord.js waits out a 429 and sends the
 * request again; a placeholder's answer that timed out is sent again too (an
 * edit: repeating it shows nothing twice). Real discord.js against the fake
 * Discord.
 */
import { describe } from "vitest";
import { ADA, GENERAL } from "../fakes/discord-state.js";
import { type CutTexts, type PreviewRig, previewDispatchContract, type RigOptions } from "../fakes/preview-dispatch-contract.js";
import { GENERAL_CHAT, type Harness, startHarness } from "./harness.js";

const CREATE = "POST /channels/:id/messages";
const EDIT = "PATCH /channels/:id/messages/:id";
const ANSWER = "PATCH /webhooks/:id/:token/messages/:id";

const CUT: CutTexts = {
  long: Array.from({ length: 300 }, (_, i) => `Line ${i} of the answer.`).join("\n"),
  // 1,838 characters, over 2,000 once each rule is drawn as a line.
  longOnceFormatted: Array.from({ length: 130 }, (_, i) => `Part ${i}\n\n---`).join("\n\n"),
};

async function rig(opts: RigOptions, posting: string, prepare?: (h: Harness) => Promise<readonly string[]>): Promise<PreviewRig> {
  const h = await startHarness(opts.requestTimeoutMs ? { timing: { requestTimeoutMs: opts.requestTimeoutMs } } : {});
  return {
    adapter: h.adapter,
    chat: GENERAL_CHAT,
    ...(prepare ? { prepare: () => prepare(h) } : {}),
    posts: () => h.fake.callsTo(posting).length,
    edits: () => h.fake.callsTo(EDIT, GENERAL).filter((c) => c.status === 200).length,
    texts: () => h.fake.texts(GENERAL),
    refuseNextPost: () => h.fake.fail(posting, { kind: "error", status: 403, code: 50013, message: "Missing Permissions" }),
    rateLimitNextPost: () => h.fake.fail(posting, { kind: "error", status: 429, retryAfterS: 0.3 }),
    holdPosts: () => h.fake.fail(posting, { kind: "hang" }, { times: 100 }),
    when: (check) => h.fake.waitFor(() => check()),
    close: () => h.close(),
  };
}

/** A slash command from Ada, acknowledged with its placeholder: the stream's `answers`. */
async function slashCommand(h: Harness): Promise<readonly string[]> {
  await h.fake.waitFor((c) => c.route === "PUT /applications/:id/commands" && c.status === 200);
  const before = h.sink.committed.length;
  const cmd = h.fake.slash(ADA, GENERAL, "model", "gpt-5");
  await h.sink.until(() => h.sink.committed.length === before + 1);
  return [cmd.id];
}

describe("a Discord preview posted as a message", () => {
  previewDispatchContract("Discord", (opts = {}) => rig(opts, CREATE), CUT);
});

describe("a Discord preview that answers a slash command's placeholder", () => {
  previewDispatchContract("Discord", (opts = {}) => rig(opts, ANSWER, slashCommand), CUT);
});
