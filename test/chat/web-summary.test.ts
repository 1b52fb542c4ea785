/**
 * web_extract as the composition root builds it: a long page is summarised
 * by the auxiliary client's `web_extract` task (its own model, through the
 * real provider stack, against the fake LLM server).
 */
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStreamFn } from "../../agent/providers/index.js";
import { createToolSystem, type ToolSystem } from "../../gateway/tools.js";
import { type FakeLlmServer, startFakeLlmServer } from "../fakes/llm-server.js";
import { type FakeWeb, startFakeWeb } from "../fakes/web-server.js";
import { testConfig } from "../runtime/helpers/harness.js";
import { callTool } from "../tools/call-tool.js";
import { makeCtx, never, parse } from "../tools/core-tools-context.js";

let llm: FakeLlmServer;
let web: FakeWeb;
let tools: ToolSystem | undefined;
beforeEach(async () => {
  [llm, web] = await Promise.all([startFakeLlmServer(), startFakeWeb()]);
});
afterEach(async () => {
  await tools?.shutdown();
  await Promise.all([llm.close(), web.close()]);
});

describe("web_extract summaries", () => {
  it("go to auxiliary.web_extract's model with the page as data", async () => {
    const config = testConfig({
      model: { provider: "custom", model: "main-model", base_url: llm.openaiBaseUrl, api_key: "k", api_mode: "chat_completions" },
      auxiliary: { web_extract: { model: "summary-model" } },
      web: { allow_private_urls: true, summarize_min_chars: 2000 },
    });
    const providers = createStreamFn(config, { home: "/tmp", logger: pino({ level: "silent" }) });
    tools = createToolSystem(config, { auxiliary: providers.auxiliary, env: { PATH: process.env.PATH ?? "/usr/bin" } });
    web.page("/long", {
      body: `<html><body><article><h1>Long read</h1><p>${"Facts about the subject. ".repeat(200)}</p></article></body></html>`,
      headers: { "content-type": "text/html" },
    });
    llm.enqueue({ text: "## Summary\n- facts, briefly" });

    const r = parse(await callTool(tools.registry.get("web_extract"), { urls: [`${web.url}/long`] }, makeCtx(), never()));
    expect(r["results"][0]).toMatchObject({ content: "## Summary\n- facts, briefly", summarized: true, title: "Long read" });
    const body = llm.completions()[0]!.body as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe("summary-model");
    expect(body.messages[0]!.content).toContain("expert content analyst");
    expect(body.messages[1]!.content).toContain(`Source: ${web.url}/long`);
    expect(body.messages[1]!.content).toContain("Facts about the subject.");
    await providers.close();
  });
});
