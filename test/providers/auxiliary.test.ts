import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStreamFn } from "../../agent/providers/index.js";
import type { Message } from "../../agent/types.js";
import { buildConfig } from "../../config/load.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { FakeClock, tempHome } from "./support.js";

let main: FakeLlmServer;
let cheap: FakeLlmServer;
let home: string;
let cleanup: () => Promise<void>;
let runtimes: ReturnType<typeof createStreamFn>[] = [];
beforeEach(async () => {
  [main, cheap] = await Promise.all([startFakeLlmServer(), startFakeLlmServer()]);
  ({ home, cleanup } = await tempHome());
});
afterEach(async () => {
  await Promise.all(runtimes.map((r) => r.flush()));
  runtimes = [];
  await Promise.all([main.close(), cheap.close()]);
  await cleanup();
});

const runtime = (aux = "", clock = new FakeClock({ instant: true })) => {
  const rt = createStreamFn(
    buildConfig({
      yamlText: `
model:
  provider: openai
  model: gpt-4o
  base_url: ${main.openaiBaseUrl}
  api_key: sk-main
${aux}`,
      file: null,
      env: {},
      home,
    }),
    { home, clock },
  );
  runtimes.push(rt);
  return rt;
};

const ask: Message[] = [
  { role: "system", content: "Answer with a title." },
  { role: "user", content: "We talked about tides." },
];

describe("auxiliary client", () => {
  it("uses the main model when the task has no override, with the system message as system prompt", async () => {
    main.enqueue({ text: "Tides" });
    const result = await runtime().auxiliary.complete("title_generation", ask, undefined, { maxTokens: 20, temperature: 0 });
    expect(result).toMatchObject({ text: "Tides", target: { provider: "openai", model: "gpt-4o" } });
    const body = main.completions()[0]?.body;
    expect(body.messages).toEqual([
      { role: "system", content: "Answer with a title." },
      { role: "user", content: "We talked about tides." },
    ]);
    expect(body).toMatchObject({ model: "gpt-4o", max_tokens: 20, temperature: 0 });
    expect(body.tools).toBeUndefined();
  });

  it("routes a task to its override target with extra_body", async () => {
    cheap.enqueue({ text: "summary" });
    const rt = runtime(`
auxiliary:
  compression:
    provider: custom
    model: cheap-model
    base_url: ${cheap.openaiBaseUrl}
    extra_body: { top_k: 5 }
`);
    expect(rt.auxiliary.target("compression")).toMatchObject({ provider: "custom", model: "cheap-model" });
    expect(rt.auxiliary.target("vision")).toMatchObject({ provider: "openai", model: "gpt-4o" });
    expect(await rt.auxiliary.complete("compression", ask)).toMatchObject({ text: "summary", target: { model: "cheap-model" } });
    expect(cheap.completions()[0]?.body).toMatchObject({ model: "cheap-model", top_k: 5 });
    expect(main.completions()).toHaveLength(0);
  });

  it("falls back to the main model when the override target keeps failing", async () => {
    cheap.enqueue({ status: 500 }, { status: 500 });
    main.enqueue({ text: "from main" });
    const rt = runtime(`
auxiliary:
  approval:
    model: tiny-judge
    base_url: ${cheap.openaiBaseUrl}
`);
    expect(await rt.auxiliary.complete("approval", ask)).toMatchObject({ text: "from main", target: { model: "gpt-4o" } });
    expect(cheap.completions().map((r) => [r.body.model, r.apiKey])).toEqual([
      ["tiny-judge", "sk-main"],
      ["tiny-judge", "sk-main"],
    ]);
  });

  it("after the override failed, stays on the main model for 600 s instead of waiting on it every call", async () => {
    const clock = new FakeClock({ instant: true });
    const rt = runtime(
      `
auxiliary:
  compression:
    model: tiny-summarizer
    base_url: ${cheap.openaiBaseUrl}
`,
      clock,
    );
    cheap.enqueue({ status: 500 }, { status: 500 });
    main.enqueue({ text: "summary 1" }, { text: "summary 2" }, { text: "unused" });
    expect(await rt.auxiliary.complete("compression", ask)).toMatchObject({ text: "summary 1", target: { model: "gpt-4o" } });
    expect(cheap.completions()).toHaveLength(2);
    await clock.advance(599_000);
    expect(await rt.auxiliary.complete("compression", ask)).toMatchObject({ text: "summary 2", target: { model: "gpt-4o" } });
    expect(cheap.completions()).toHaveLength(2); // the cooldown: not asked again
    await clock.advance(2_000);
    cheap.enqueue({ text: "cheap again" });
    expect(await rt.auxiliary.complete("compression", ask)).toMatchObject({ text: "cheap again", target: { model: "tiny-summarizer" } });
  });

  it("returns a classified error instead of throwing, and honours the task timeout", async () => {
    main.enqueue({ status: 401, message: "invalid api key" });
    const rt = runtime(`
auxiliary:
  session_search:
    timeout_s: 0.2
`);
    expect(await rt.auxiliary.complete("title_generation", ask)).toMatchObject({ error: { reason: "auth" } });
    main.enqueue({ hang: "before_headers" }, { hang: "before_headers" });
    expect(await rt.auxiliary.complete("session_search", ask)).toMatchObject({ error: { reason: "timeout" } });
    const ac = new AbortController();
    ac.abort();
    expect(await rt.auxiliary.complete("vision", ask, ac.signal)).toMatchObject({ error: { reason: "aborted" } });
  });
});
