/**
 * Builds a runtime wired to the test adapter, a store and a runner, from a
 * config written as the YAML object a user would write.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Logger, pino } from "pino";
import { stringify } from "yaml";
import type { Adapter, Capabilities, InboundEvent } from "../../../adapters/types.js";
import type { Clock } from "../../../agent/types.js";
import { buildConfig, type Config, type ConfigInput } from "../../../config/index.js";
import { createRuntime, type Runtime } from "../../../gateway/runtime/index.js";
import type {
  CronPort,
  MediaPreparer,
  PromptBuilder,
  ReplyAttachments,
  RuntimeHooks,
  RuntimeMetrics,
  RuntimeStore,
  TurnRunner,
} from "../../../gateway/runtime/ports.js";
import { openStore, type Store } from "../../../gateway/store/index.js";
import { runtimeStoreOver } from "../../../gateway/wiring/runtime-store.js";
import { TestAdapter } from "../../fakes/test-adapter.js";
import { ScriptedRunner } from "./scripted-runner.js";

export interface HarnessOptions {
  readonly config?: ConfigInput;
  readonly runner?: TurnRunner;
  readonly platform?: string;
  readonly capabilities?: Partial<Capabilities>;
  /** The SQLite store to use (a fresh ":memory:" one by default). */
  readonly raw?: Store;
  readonly clock?: Clock;
  readonly hooks?: RuntimeHooks;
  readonly media?: MediaPreparer;
  readonly prompt?: PromptBuilder;
  /** The adapter to use (a fresh TestAdapter by default): set it up before the runtime starts. */
  readonly adapter?: TestAdapter;
  /** The runtime's adapters by platform (holding `adapter` alone by default): a test that changes it later passes its own. */
  readonly adapters?: Map<string, Adapter>;
  readonly attachments?: ReplyAttachments;
  readonly cron?: CronPort;
  readonly metrics?: RuntimeMetrics;
  /** The runtime's logger (silent by default; HGW_TEST_LOG sets its level). */
  readonly logger?: Logger;
}

export interface Harness {
  readonly runtime: Runtime;
  readonly adapter: TestAdapter;
  readonly store: RuntimeStore;
  /** The same store, through its own API, for assertions. */
  readonly raw: Store;
  readonly config: Config;
  readonly runner: TurnRunner;
  readonly home: string;
  close(): Promise<void>;
}

/** Open access unless a test says otherwise, and quick timers. */
const BASE: ConfigInput = { gateway: { allow_all_users: true, drain_timeout_s: 0.2 } };

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      v && typeof v === "object" && !Array.isArray(v) && prev && typeof prev === "object" && !Array.isArray(prev)
        ? merge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

export function testConfig(input: ConfigInput = {}, home = "/tmp/hermes-test"): Config {
  const yamlText = stringify(merge(BASE as Record<string, unknown>, input as Record<string, unknown>));
  return buildConfig({ yamlText, file: null, env: {}, home });
}

export async function makeHarness(o: HarnessOptions = {}): Promise<Harness> {
  const home = mkdtempSync(join(tmpdir(), "hgw-rt-"));
  const config = testConfig(o.config, home);
  const adapter = o.adapter ?? new TestAdapter(o.platform ?? "test", o.capabilities);
  const raw = o.raw ?? openStore(":memory:");
  const store = runtimeStoreOver(raw);
  const runner = o.runner ?? new ScriptedRunner();
  const logger = o.logger ?? pino({ level: process.env.HGW_TEST_LOG ?? "silent" });
  const adapters = o.adapters ?? new Map<string, Adapter>();
  if (!o.adapters) adapters.set(adapter.platform, adapter);
  const runtime = createRuntime({
    config,
    logger,
    store,
    runner,
    adapters,
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.hooks ? { hooks: o.hooks } : {}),
    ...(o.media ? { media: o.media } : {}),
    ...(o.prompt ? { prompt: o.prompt } : {}),
    ...(o.attachments ? { attachments: o.attachments } : {}),
    ...(o.cron ? { cron: o.cron } : {}),
    ...(o.metrics ? { metrics: o.metrics } : {}),
  });
  await adapter.start(runtime.sink);
  await runtime.start();
  return {
    runtime,
    adapter,
    store,
    raw,
    config,
    runner,
    home,
    async close() {
      await runtime.stop("shutdown");
      await adapter.stop();
      if (!o.raw) raw.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A DM message event from `user` on the test platform, as an adapter records it (for filling a store as a previous run left it). */
export function dmEvent(eventId: string, text: string, user = "alice"): InboundEvent {
  return {
    kind: "message",
    eventId,
    messageId: `in-${eventId}`,
    chat: { platform: "test", chatId: user, chatType: "dm" },
    sender: { userId: user, displayName: user, isBot: false },
    timestamp: Date.now(),
    text,
    media: [],
    addressed: true,
  };
}

/** The session key of a DM with `user` on the test platform. */
export const dmKey = (user = "alice", platform = "test") => `agent:main:${platform}:dm:${user}`;

/** Approval audit rows of a session key, oldest first. */
export function audit(h: Harness, key = dmKey()) {
  return [...h.raw.approvals.listBySessionKey(key)].sort((a, b) => a.decidedAt - b.decidedAt);
}
