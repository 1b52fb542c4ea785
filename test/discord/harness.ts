/**
 * Shared setup for the Discord adapter tests: the fake Discord, a temp
 * download dir, the real adapter (real discord.js inside) with shrunk
 * timings, and a recording sink.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { DiscordAdapter, type DiscordTiming } from "../../adapters/discord/index.js";
import type { ChatRef } from "../../adapters/types.js";
import { ConfigSchema, type DiscordConfig } from "../../config/index.js";
import { FakeDiscord, type FakeDiscordOptions } from "../fakes/discord-api.js";
import { GENERAL } from "../fakes/discord-state.js";
import { RecordingSink } from "../fakes/recording-sink.js";

export { deferred, RecordingSink, sleepMs } from "../fakes/recording-sink.js";

export const FAST_TIMING: Partial<DiscordTiming> = { requestTimeoutMs: 3000, readyTimeoutMs: 5000, sendBackoffBaseMs: 20, sendBackoffMaxMs: 100 };

export type DiscordInput = Record<string, unknown>;

export function discordConfig(fake: FakeDiscord, overrides: DiscordInput = {}): DiscordConfig {
  // Previews at once and edits every 50 ms unless a test is about streaming.
  const streaming = { first_preview_ms: 0, edit_interval_ms: 50 };
  const input = { token: fake.token, api_url: fake.apiUrl, streaming, ...overrides };
  return ConfigSchema.parse({ gateway: { platforms: { discord: input } } }).gateway.platforms.discord as DiscordConfig;
}

export interface Harness {
  readonly fake: FakeDiscord;
  readonly adapter: DiscordAdapter;
  readonly sink: RecordingSink;
  readonly dir: string;
  /** What the adapter's catch-up is told had a conversation lately. */
  recent: ChatRef[];
  /** Builds another adapter on the same fake (a restart). */
  makeAdapter(overrides?: DiscordInput): DiscordAdapter;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly config?: DiscordInput;
  readonly fake?: FakeDiscordOptions;
  readonly timing?: Partial<DiscordTiming>;
  /** Start the adapter (default true). */
  readonly start?: boolean;
  readonly maxInboundMediaBytes?: number;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const fake = new FakeDiscord(opts.fake);
  await fake.start();
  const dir = await mkdtemp(join(tmpdir(), "hgw-dc-"));
  const adapters: DiscordAdapter[] = [];
  const h = { recent: [] as ChatRef[] };
  const makeAdapter = (overrides: DiscordInput = {}): DiscordAdapter => {
    const a = new DiscordAdapter({
      config: discordConfig(fake, { ...opts.config, ...overrides }),
      downloadDir: dir,
      logger: pino({ level: process.env.HGW_TEST_LOG ?? "silent" }),
      timing: { ...FAST_TIMING, ...opts.timing },
      commands: [
        { name: "new", description: "Start a new session" },
        { name: "model", description: "Switch the model", args: "[name]" },
      ],
      maxInboundMediaBytes: opts.maxInboundMediaBytes ?? 1024 * 1024,
      recentChats: () => h.recent,
    });
    adapters.push(a);
    return a;
  };
  const adapter = makeAdapter();
  const sink = new RecordingSink();
  if (opts.start !== false) await adapter.start(sink, AbortSignal.timeout(5000));
  return Object.assign(h, {
    fake,
    adapter,
    sink,
    dir,
    makeAdapter,
    async close() {
      for (const a of adapters) await a.stop(AbortSignal.timeout(2000)).catch(() => undefined);
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    },
  });
}

export const GENERAL_CHAT: ChatRef = { platform: "discord", chatId: GENERAL, chatType: "group" };
