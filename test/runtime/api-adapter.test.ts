import Fastify, { type FastifyInstance } from "fastify";
import OpenAI from "openai";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ApiAdapter } from "../../adapters/api/index.js";
import type { ApprovalRequest } from "../../agent/types.js";
import type { ConfigInput } from "../../config/index.js";
import { createRuntime, type Runtime } from "../../gateway/runtime/index.js";
import type { TurnRunner } from "../../gateway/runtime/ports.js";
import { openStore } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";
import { answerBeforeBody } from "../fakes/early-answer.js";
import { testConfig } from "./helpers/harness.js";
import { completed, inputText, ScriptedRunner, wait } from "./helpers/scripted-runner.js";

const KEY = "sk-test-api-key-0123456789";

interface Api {
  readonly url: string;
  readonly client: OpenAI;
  readonly runtime: Runtime;
  readonly adapter: ApiAdapter;
  close(): Promise<void>;
}
let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function startApi(runner: TurnRunner, config: ConfigInput = {}): Promise<Api> {
  const platforms = config.gateway?.platforms;
  const cfg = testConfig({ ...config, gateway: { ...(config.gateway ?? {}), platforms: { ...platforms, api: { ...platforms?.api, key: KEY } } } });
  const logger = pino({ level: "silent" });
  const adapter = new ApiAdapter({ config: cfg.gateway.platforms.api, logger });
  const raw = openStore(":memory:");
  const runtime = createRuntime({ config: cfg, logger, store: runtimeStoreOver(raw), runner, adapters: new Map([["api", adapter]]) });
  const app: FastifyInstance = Fastify();
  adapter.registerRoutes(app);
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  await adapter.start(runtime.sink);
  await runtime.start();
  const client = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
  return {
    url,
    client,
    runtime,
    adapter,
    async close() {
      await runtime.stop("shutdown");
      await adapter.stop();
      await app.close();
      raw.close();
    },
  };
}

const echoRunner = () => new ScriptedRunner(async (req) => completed(req, `echo: ${inputText(req)} (history ${req.history.length})`));
const rm: ApprovalRequest = { command: "rm -rf /tmp/x", category: "recursive delete", description: "recursive delete", allowPermanent: false };
const approvingRunner = () =>
  new ScriptedRunner(async (req, signal) => {
    const d = await req.tools.approver.request(rm, signal);
    return completed(req, `outcome: ${d?.choice}`);
  });

async function json(url: string, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...(init.headers ?? {}) } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function pendingApproval(a: Api): Promise<{ id: string; choices: string[] }> {
  for (let i = 0; i < 200; i++) {
    const { body } = await json(`${a.url}/v1/approvals`);
    const first = (body.data as { id: string; choices: string[] }[])[0];
    if (first) return first;
    await wait(10, new AbortController().signal);
  }
  throw new Error("no approval appeared");
}

describe("the OpenAI-compatible API adapter, through the real openai SDK", () => {
  it("answers a non-streamed chat completion", async () => {
    api = await startApi(echoRunner());
    const res = await api.client.chat.completions.create({ model: "hermes-agent", messages: [{ role: "user", content: "hello" }] });
    expect(res.choices[0]?.message.content).toBe("echo: hello (history 0)");
    expect(res.choices[0]?.finish_reason).toBe("stop");
  });

  it("streams a chat completion as SSE chunks", async () => {
    api = await startApi(echoRunner());
    const stream = await api.client.chat.completions.create({ model: "hermes-agent", messages: [{ role: "user", content: "stream me" }], stream: true });
    let text = "";
    let finish: string | null = null;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? "";
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe("echo: stream me (history 0)");
    expect(finish).toBe("stop");
    // The SDK's own accumulator accepts the stream too.
    const final = await api.client.chat.completions.stream({ model: "hermes-agent", messages: [{ role: "user", content: "again" }] }).finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe("echo: again (history 2)");
  });

  it("answers a turn that ends with nothing to say with an empty completion, plain or streamed, instead of waiting for the timeout", async () => {
    api = await startApi(new ScriptedRunner(async (req) => completed(req, "[SILENT]")));
    const res = await api.client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "just listen" }] });
    expect(res.choices[0]?.message.content).toBe("");
    expect(res.choices[0]?.finish_reason).toBe("stop");
    const stream = await api.client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "listen again" }], stream: true });
    let text = "";
    let finish: string | null = null;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? "";
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect([text, finish]).toEqual(["", "stop"]);
  });

  it("answers a message that only answered the agent's question once the conversation is idle, after the turn's own reply", async () => {
    api = await startApi(
      new ScriptedRunner(async (req, signal) => {
        const a = await req.tools.clarifier.ask({ question: "Which colour?", choices: [], allowFreeText: true }, signal);
        return completed(req, `colour: ${a.kind === "answer" ? a.text : a.kind}`);
      }),
    );
    const asking = api.client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "paint it" }] });
    for (let i = 0; i < 200 && api.adapter.prompts.clarifications.size === 0; i++) await wait(10, new AbortController().signal);
    const answering = api.client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "blue" }] });
    expect((await asking).choices[0]?.message.content).toBe("colour: blue");
    expect((await answering).choices[0]?.message.content).toBe("");
  });

  it("keeps sessions apart by X-Hermes-Session or the user field", async () => {
    api = await startApi(echoRunner());
    const ask = (content: string, session: string) =>
      api!.client.chat.completions.create({ model: "m", messages: [{ role: "user", content }] }, { headers: { "X-Hermes-Session": session } });
    await ask("one", "s1");
    expect((await ask("two", "s1")).choices[0]?.message.content).toBe("echo: two (history 2)");
    expect((await ask("three", "s2")).choices[0]?.message.content).toBe("echo: three (history 0)");
    const byUser = await api.client.chat.completions.create({ model: "m", user: "s1", messages: [{ role: "user", content: "four" }] });
    expect(byUser.choices[0]?.message.content).toBe("echo: four (history 4)");
  });

  it("refuses a bad key with 401 and lists models with a good one", async () => {
    api = await startApi(echoRunner());
    const bad = new OpenAI({ apiKey: "sk-wrong", baseURL: `${api.url}/v1`, maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 401 });
    await expect(bad.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const res = await fetch(`${api.url}/v1/models`);
    expect(res.status).toBe(401);
    const models = await api.client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["hermes-agent"]);
  });

  it("lets a client approve a command through /v1/approvals; a second decision is refused", async () => {
    api = await startApi(approvingRunner());
    const pending = api.client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "clean" }] });
    const a = await pendingApproval(api);
    expect(a.choices).toEqual(["once", "session", "deny"]);
    const bad = await json(`${api.url}/v1/approvals/${a.id}`, { method: "POST", body: JSON.stringify({ choice: "always" }) });
    expect(bad.status).toBe(400);
    const ok = await json(`${api.url}/v1/approvals/${a.id}`, { method: "POST", body: JSON.stringify({ choice: "once" }) });
    expect(ok).toMatchObject({ status: 200, body: { status: "resolved", choice: "once" } });
    expect((await pending).choices[0]?.message.content).toBe("outcome: once");
    const again = await json(`${api.url}/v1/approvals/${a.id}`, { method: "POST", body: JSON.stringify({ choice: "deny" }) });
    expect(again.status).toBe(404);
    const noAuth = await fetch(`${api.url}/v1/approvals`);
    expect(noAuth.status).toBe(401);
  });

  it("refuses an approval decision after the timeout denied it", async () => {
    api = await startApi(approvingRunner(), { approvals: { timeout_s: 0.3 } });
    const pending = api.client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "clean" }] });
    const a = await pendingApproval(api);
    expect((await pending).choices[0]?.message.content).toBe("outcome: timeout");
    const late = await json(`${api.url}/v1/approvals/${a.id}`, { method: "POST", body: JSON.stringify({ choice: "once" }) });
    expect(late.status).toBe(404);
  });

  it("refuses a request without the key from its headers alone: the body is never read", async () => {
    api = await startApi(echoRunner());
    for (const [path, auth] of [
      ["/v1/chat/completions", undefined],
      ["/v1/chat/completions", "Bearer sk-wrong"],
      ["/v1/approvals/some-id", undefined],
      ["/v1/clarifications/some-id", "Basic eA=="],
    ] as const) {
      const r = await answerBeforeBody(`${api.url}${path}`, { headers: auth ? { authorization: auth } : {} });
      expect(r.status, path).toBe(401);
      expect(JSON.parse(r.body)).toMatchObject({ error: { code: "invalid_api_key" } });
      expect(r.sentBytes).toBeLessThan(r.declaredBytes);
      expect(r.headers.connection).toBe("close");
      expect(r.closedByServer).toBe(true);
    }
  });

  it("limits bodies per route: chat completions to max_body_bytes, decisions to 64 KiB, refused before they are read", async () => {
    api = await startApi(echoRunner(), { gateway: { platforms: { api: { max_body_bytes: 2 * 1024 * 1024 } } } });
    const auth = { authorization: `Bearer ${KEY}` };
    expect((await answerBeforeBody(`${api.url}/v1/chat/completions`, { headers: auth, declaredBytes: 2 * 1024 * 1024 + 1 })).status).toBe(413);
    expect((await answerBeforeBody(`${api.url}/v1/approvals/some-id`, { headers: auth, declaredBytes: 64 * 1024 + 1 })).status).toBe(413);
    // Below the limit, a history with an inline image is fine.
    const image = { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(1_500_000)}` } };
    const res = await api.client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: [image, { type: "text", text: "what is this?" }] as never }],
    });
    expect(res.choices[0]?.message.content).toBe("echo: what is this? (history 0)");
  });

  it("refuses to start without a key", async () => {
    const cfg = testConfig();
    const adapter = new ApiAdapter({ config: cfg.gateway.platforms.api, logger: pino({ level: "silent" }) });
    await expect(adapter.start({ deliver: async () => ({ status: "accepted" }) })).rejects.toThrow(/gateway\.platforms\.api\.key/);
  });
});
