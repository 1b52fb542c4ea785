/**
 * The user turn the media step builds (images first, then the text) in the
 * wire shape of each API, and the request-wide image budget.
 */
import { describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../../agent/providers/convert-anthropic.js";
import { chatRequestBody } from "../../agent/providers/convert-chat.js";
import { responsesRequestBody } from "../../agent/providers/convert-responses.js";
import { capImages } from "../../agent/providers/transform.js";
import type { Message, ModelRequest } from "../../agent/types.js";
import { dataUrlOf, makePng } from "./helpers/images.js";

const png = makePng(4, 4);
const b64 = png.toString("base64");
const photoTurn: Message = {
  role: "user",
  content: [
    { type: "image_url", image_url: { url: dataUrlOf(png) } },
    { type: "image_url", image_url: { url: `data:image/jpeg;base64,${b64}` } },
    { type: "text", text: "[The user sent an image, saved at: /c/p.png]\nwhat is this?" },
  ],
};
const req: ModelRequest = { model: "m", system: "sys", messages: [photoTurn], tools: [] };

/** The wire form of the one user turn, per API mode. */
const WIRE: readonly { mode: string; user: (r: ModelRequest) => unknown; expected: unknown }[] = [
  {
    mode: "chat_completions",
    user: (r) => (chatRequestBody(r, "http://x/v1").messages as unknown[])[1],
    expected: {
      role: "user",
      content: [
        { type: "image_url", image_url: { url: `data:image/png;base64,${b64}` } },
        { type: "image_url", image_url: { url: `data:image/jpeg;base64,${b64}` } },
        { type: "text", text: "[The user sent an image, saved at: /c/p.png]\nwhat is this?" },
      ],
    },
  },
  {
    mode: "anthropic_messages",
    user: (r) => toAnthropicMessages(r.system, r.messages, { provider: "anthropic", cacheTtl: "5m" }).messages[0],
    expected: {
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: b64 } },
        { type: "image", source: { type: "base64", media_type: "image/jpeg", data: b64 } },
        { type: "text", text: "[The user sent an image, saved at: /c/p.png]\nwhat is this?", cache_control: { type: "ephemeral" } },
      ],
    },
  },
  {
    mode: "codex_responses",
    user: (r) => (responsesRequestBody(r, { provider: "openai", baseUrl: "http://x/v1" }).input as unknown[])[0],
    expected: {
      role: "user",
      content: [
        { type: "input_image", image_url: `data:image/png;base64,${b64}`, detail: "auto" },
        { type: "input_image", image_url: `data:image/jpeg;base64,${b64}`, detail: "auto" },
        { type: "input_text", text: "[The user sent an image, saved at: /c/p.png]\nwhat is this?" },
      ],
    },
  },
];

describe("image parts on the wire", () => {
  it.each(WIRE)("$mode carries every image of the turn, in order, before the text", ({ user, expected }) => {
    expect(user(req)).toEqual(expected);
  });
});

describe("capImages", () => {
  const turn = (n: number, chars: number): Message => ({
    role: "user",
    content: [
      { type: "image_url", image_url: { url: `data:image/png;base64,${String(n).repeat(chars)}` } },
      { type: "text", text: `turn ${n}` },
    ],
  });

  it("keeps the newest images within the budget and turns older ones into [image]", () => {
    const history: Message[] = [turn(1, 100), { role: "assistant", content: "ok" }, turn(2, 100), { role: "assistant", content: "ok" }, turn(3, 100)];
    const out = capImages(history, 250);
    expect(
      out.map((m) => (typeof m.content === "string" || m.content === null ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "IMG")))),
    ).toEqual([["[image]", "turn 1"], "ok", ["IMG", "turn 2"], "ok", ["IMG", "turn 3"]]);
    expect(history[0]).toEqual(turn(1, 100)); // inputs are not mutated
  });

  it("returns the same array when everything fits", () => {
    const history: Message[] = [turn(1, 10), turn(2, 10)];
    expect(capImages(history, 1000)).toBe(history);
  });
});
