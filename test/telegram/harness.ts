/**
 * Shared setup for the Telegram adapter tests: a fake Bot API, a temp
 * download dir, the real adapter with shrunk timings, and a recording sink.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { TelegramAdapter } from "../../adapters/telegram/index.js";
import type { TelegramTiming } from "../../adapters/telegram/options.js";
import { ConfigSchema, type TelegramConfig } from "../../config/index.js";
import { RecordingSink } from "../fakes/recording-sink.js";
import { FakeTelegramApi, type FakeTelegramOptions } from "../fakes/telegram-api.js";

export { deferred, RecordingSink, sleepMs } from "../fakes/recording-sink.js";

export const FAST_TIMING: Partial<TelegramTiming> = {
  conflictBaseMs: 60,
  networkBaseMs: 40,
  networkMaxMs: 200,
  sendBackoffBaseMs: 30,
  sendBackoffMaxMs: 200,
  requestTimeoutS: 10,
};

export type TelegramInput = Record<string, unknown>;

export function telegramConfig(fake: FakeTelegramApi, overrides: TelegramInput = {}): TelegramConfig {
  // Generous rate limits unless a test is about them: pacing is tested on its own.
  const rateLimits = { per_chat_per_s: 100, per_group_per_min: 6000, global_per_s: 300 };
  // Previews at once and edits every 50 ms unless a test is about streaming.
  const streaming = { first_preview_ms: 0, edit_interval_ms: 50 };
  const input = {
    token: fake.token,
    api_root: fake.apiRoot,
    poll_timeout_s: 1,
    poll_stall_margin_s: 0.5,
    split_join_ms: 0,
    rate_limits: rateLimits,
    streaming,
    ...overrides,
  };
  return ConfigSchema.parse({ gateway: { platforms: { telegram: input } } }).gateway.platforms.telegram as TelegramConfig;
}

export interface Harness {
  readonly fake: FakeTelegramApi;
  readonly adapter: TelegramAdapter;
  readonly sink: RecordingSink;
  readonly dir: string;
  /** Builds another adapter on the same fake (a restart). */
  makeAdapter(overrides?: TelegramInput): TelegramAdapter;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly config?: TelegramInput;
  readonly fake?: FakeTelegramOptions;
  readonly timing?: Partial<TelegramTiming>;
  /** Start the adapter (default true). */
  readonly start?: boolean;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const fake = new FakeTelegramApi(opts.fake);
  await fake.start();
  const dir = await mkdtemp(join(tmpdir(), "hgw-tg-"));
  const adapters: TelegramAdapter[] = [];
  const makeAdapter = (overrides: TelegramInput = {}): TelegramAdapter => {
    const a = new TelegramAdapter({
      config: telegramConfig(fake, { ...opts.config, ...overrides }),
      downloadDir: dir,
      logger: pino({ level: process.env.HGW_TEST_LOG ?? "silent" }),
      timing: { ...FAST_TIMING, ...opts.timing },
      commands: [{ command: "new", description: "Start a new session" }],
    });
    adapters.push(a);
    return a;
  };
  const adapter = makeAdapter();
  const sink = new RecordingSink();
  if (opts.start !== false) await adapter.start(sink, AbortSignal.timeout(5000));
  return {
    fake,
    adapter,
    sink,
    dir,
    makeAdapter,
    async close() {
      for (const a of adapters) await a.stop(AbortSignal.timeout(1000)).catch(() => undefined);
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
