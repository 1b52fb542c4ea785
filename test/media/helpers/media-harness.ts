/**
 * A runtime with the real media step, the real agent runner and the real
 * provider SDKs against the fake LLM server (and, when a test asks, the fake
 * speech-to-text server), driven through the test adapter.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { ToolRegistry } from "../../../agent/index.js";
import { createStreamFn } from "../../../agent/providers/index.js";
import type { ApiMode, ConfigInput } from "../../../config/index.js";
import { createAgentRunner } from "../../../gateway/agent-turn/runner.js";
import { createMedia } from "../../../gateway/media/index.js";
import type { PromptBuilder } from "../../../gateway/runtime/ports.js";
import type { FakeLlmServer, FakeRequest } from "../../fakes/llm-server.js";
import { type Harness, makeHarness, testConfig } from "../../runtime/helpers/harness.js";

export interface MediaHarnessOptions {
  readonly mode?: ApiMode;
  readonly model?: string;
  readonly vision?: "auto" | boolean;
  /** Merged over the config (auxiliary, stt, gateway …). */
  readonly config?: ConfigInput;
  readonly prompt?: PromptBuilder;
}

export interface MediaHarness extends Harness {
  /** A scratch directory for the files the test "receives". */
  readonly files: string;
}

export async function mediaHarness(llm: FakeLlmServer, o: MediaHarnessOptions = {}): Promise<MediaHarness> {
  const mode = o.mode ?? "chat_completions";
  const model = {
    provider: "custom",
    model: o.model ?? "fake-model",
    base_url: mode === "anthropic_messages" ? llm.anthropicBaseUrl : llm.openaiBaseUrl,
    api_key: "k",
    api_mode: mode,
    vision: o.vision ?? "auto",
  };
  const input: ConfigInput = { ...o.config, model };
  const files = await mkdtemp(join(tmpdir(), "hgw-media-"));
  const cfg = testConfig(input, files);
  const logger = pino({ level: process.env.HGW_TEST_LOG ?? "silent" });
  const providers = createStreamFn(cfg, { home: files, logger });
  const registry = new ToolRegistry();
  const runner = createAgentRunner({ config: cfg, stream: providers.stream, tools: (ts) => registry.view(ts) });
  const h = await makeHarness({ runner, config: input, media: createMedia(cfg, providers, logger), ...(o.prompt ? { prompt: o.prompt } : {}) });
  return {
    ...h,
    files,
    async close() {
      await h.close();
      await providers.flush(); // credential-pool state is written to auth.json in `files`
      await rm(files, { recursive: true, force: true });
    },
  };
}

interface WireUser {
  /** Every image of the last user turn, as data: URLs. */
  readonly images: string[];
  /** Its text parts, joined. */
  readonly text: string;
}

/** The last user turn of a recorded request, whatever the API. */
export function lastUser(req: FakeRequest): WireUser {
  const list = (req.api === "responses" ? req.body.input : req.body.messages) as { role?: string; content: unknown }[];
  const user = [...list].reverse().find((m) => m.role === "user");
  if (!user) return { images: [], text: "" };
  if (typeof user.content === "string") return { images: [], text: user.content };
  const parts = user.content as Record<string, any>[];
  const images = parts.flatMap((p): string[] => {
    if (p.type === "image_url") return [p.image_url.url];
    if (p.type === "input_image") return [p.image_url];
    if (p.type === "image") return [`data:${p.source.media_type};base64,${p.source.data}`];
    return [];
  });
  const text = parts.flatMap((p) => (p.type === "text" || p.type === "input_text" ? [p.text as string] : [])).join("\n");
  return { images, text };
}
