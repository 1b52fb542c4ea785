/** Shared helpers for the provider tests: the fake clock, event collection, temp homes. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProviderHttp } from "../../agent/providers/http.js";
import type { ProviderConnection } from "../../agent/providers/stream-runner.js";
import type { AssistantMessage, Message, ModelRequest, ProviderEvent, StreamFn } from "../../agent/types.js";
import { FakeClock } from "../fakes/fake-clock.js";

/** The tests' one fake clock; the provider tests run it instant: retry waits pass at once and are recorded. */
export { FakeClock };

export async function collect(events: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

export function terminal(events: readonly ProviderEvent[]): Extract<ProviderEvent, { type: "done" | "error" }> {
  const ends = events.filter((e): e is Extract<ProviderEvent, { type: "done" | "error" }> => e.type === "done" || e.type === "error");
  if (ends.length !== 1) throw new Error(`expected exactly one terminal event, got ${ends.length}`);
  if (events[events.length - 1] !== ends[0]) throw new Error("terminal event is not last");
  return ends[0] as Extract<ProviderEvent, { type: "done" | "error" }>;
}

export function doneMessage(events: readonly ProviderEvent[]): AssistantMessage {
  const t = terminal(events);
  if (t.type !== "done") throw new Error(`expected done, got error ${JSON.stringify(t.error)}`);
  return t.message;
}

export async function run(stream: StreamFn, request: ModelRequest, signal: AbortSignal = new AbortController().signal): Promise<ProviderEvent[]> {
  return collect(stream(request, signal));
}

export function request(messages: readonly Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "test-model", system: "You are a test.", messages, tools: [WEATHER_TOOL], ...extra };
}

export const WEATHER_TOOL = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
} as const;

export function connection(baseUrl: string, extra: Partial<ProviderConnection> = {}): ProviderConnection {
  return {
    provider: "test",
    baseUrl,
    apiKey: "sk-test",
    idleTimeoutMs: 5000,
    requestTimeoutMs: 10_000,
    contextLength: 128_000,
    clock: new FakeClock({ instant: true }),
    http: createProviderHttp(),
    ...extra,
  };
}

export async function tempHome(): Promise<{ home: string; cleanup: () => Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), "hgw-prov-"));
  return { home, cleanup: () => rm(home, { recursive: true, force: true }) };
}
