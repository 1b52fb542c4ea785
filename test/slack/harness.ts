/**
 * Shared setup for the Slack adapter tests: the fake Slack (Web API, Socket
 * Mode, file URLs), a temp download dir, the real adapter (bolt app, Web API
 * client) with shrunk timings, and a recording sink. HTTP mode runs on a
 * real fastify server, as the daemon's.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { pino } from "pino";
import { SlackAdapter, type SlackTiming } from "../../adapters/slack/index.js";
import { ConfigSchema, type SlackConfig } from "../../config/index.js";
import { RecordingSink } from "../fakes/recording-sink.js";
import { FakeSlackApi } from "../fakes/slack-api.js";

export const FAST_TIMING: Partial<SlackTiming> = {
  requestTimeoutMs: 2_000,
  pingIntervalMs: 100,
  pongTimeoutMs: 400,
  helloTimeoutMs: 1_000,
  closeGraceMs: 200,
  reconnectBaseMs: 50,
  reconnectMaxMs: 200,
  sendBackoffBaseMs: 20,
  sendBackoffMaxMs: 100,
};

export const SIGNING_SECRET = "fake-signing-secret";

export function slackConfig(fake: FakeSlackApi, overrides: Record<string, unknown> = {}): SlackConfig {
  const input = {
    bot_token: fake.botToken,
    app_token: fake.appToken,
    signing_secret: SIGNING_SECRET,
    api_url: fake.apiUrl,
    // Generous limits and quick previews unless a test is about them.
    rate_limits: { per_channel_per_s: 200, global_per_s: 500 },
    streaming: { first_preview_ms: 0, edit_interval_ms: 50 },
    ...overrides,
  };
  return ConfigSchema.parse({ gateway: { platforms: { slack: input } } }).gateway.platforms.slack as SlackConfig;
}

export interface Harness {
  readonly fake: FakeSlackApi;
  readonly adapter: SlackAdapter;
  readonly sink: RecordingSink;
  readonly dir: string;
  /** HTTP mode: the fastify server the adapter's route is on, and the events URL. */
  readonly http?: FastifyInstance;
  readonly eventsUrl?: string;
  makeAdapter(overrides?: Record<string, unknown>): SlackAdapter;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly config?: Record<string, unknown>;
  readonly timing?: Partial<SlackTiming>;
  readonly start?: boolean;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const fake = new FakeSlackApi();
  await fake.start();
  const dir = await mkdtemp(join(tmpdir(), "hgw-slack-"));
  const adapters: SlackAdapter[] = [];
  const makeAdapter = (overrides: Record<string, unknown> = {}): SlackAdapter => {
    const a = new SlackAdapter({
      config: slackConfig(fake, { ...opts.config, ...overrides }),
      downloadDir: dir,
      logger: pino({ level: process.env.HGW_TEST_LOG ?? "silent" }),
      maxInboundMediaBytes: 1024 * 1024,
      timing: { ...FAST_TIMING, ...opts.timing },
    });
    adapters.push(a);
    return a;
  };
  const adapter = makeAdapter();
  const sink = new RecordingSink();
  let http: FastifyInstance | undefined;
  let eventsUrl: string | undefined;
  if (opts.config?.transport === "http") {
    // As the daemon's server: a body limit of 8 MiB for routes that set none.
    http = Fastify({ bodyLimit: 8 * 1024 * 1024 });
    adapter.registerRoutes(http);
    const base = await http.listen({ host: "127.0.0.1", port: 0 });
    eventsUrl = `${base}${String(opts.config.http_path ?? "/slack/events")}`;
  }
  if (opts.start !== false) await adapter.start(sink, AbortSignal.timeout(5000));
  return {
    fake,
    adapter,
    sink,
    dir,
    ...(http ? { http } : {}),
    ...(eventsUrl ? { eventsUrl } : {}),
    makeAdapter,
    async close() {
      for (const a of adapters) await a.stop(AbortSignal.timeout(2000)).catch(() => undefined);
      await http?.close();
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
