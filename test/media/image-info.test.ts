import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { supportsVision } from "../../agent/providers/catalog.js";
import { sniffImage } from "../../gateway/media/index.js";
import { FIXTURES, makePng } from "./helpers/images.js";

describe("sniffImage", () => {
  it.each([
    ["python.jpg", "image/jpeg"],
    ["python.gif", "image/gif"],
    ["python.webp", "image/webp"],
  ] as const)("reads the format and size of a real %s", (file, type) => {
    expect(sniffImage(readFileSync(join(FIXTURES, file)))).toEqual({ mediaType: type, width: 16, height: 16 });
  });

  it("reads a generated PNG, whatever its size", () => {
    expect(sniffImage(makePng(2, 9000))).toEqual({ mediaType: "image/png", width: 2, height: 9000 });
  });

  it("refuses formats vision APIs do not take, and garbage", () => {
    expect(sniffImage(readFileSync(join(FIXTURES, "python.bmp")))).toBeNull();
    expect(sniffImage(Buffer.from("not an image at all"))).toBeNull();
    expect(sniffImage(Buffer.alloc(0))).toBeNull();
  });

  it("does not throw on a truncated JPEG", () => {
    const jpeg = readFileSync(join(FIXTURES, "python.jpg"));
    expect(sniffImage(jpeg.subarray(0, 30))).toEqual({ mediaType: "image/jpeg" });
  });
});

describe("supportsVision (model-family table)", () => {
  it.each([
    ["anthropic/claude-sonnet-4.5", true],
    ["claude-3-5-haiku-20241022", true],
    ["claude-2.1", false],
    ["openai/gpt-4o-mini", true],
    ["gpt-4.1", true],
    ["gpt-5-codex", true],
    ["o3", true],
    ["o3-mini", false],
    ["o1-mini", false],
    ["gpt-3.5-turbo", false],
    ["google/gemini-2.5-flash", true],
    ["x-ai/grok-4", true],
    ["meta-llama/llama-4-maverick", true],
    ["qwen/qwen2.5-vl-72b-instruct", true],
    ["qwen/qwen3-235b-a22b", false],
    ["deepseek/deepseek-chat-v3.1", false],
    ["z-ai/glm-4.5v", true],
    ["z-ai/glm-4.5", false],
    ["llava:13b", true],
    ["fake-model", false],
  ] as const)("%s → %s", (model, expected) => {
    expect(supportsVision(model)).toBe(expected);
  });
});
