/**
 * The terminal adapter in process, over the real runtime and a real SQLite
 * store: lines come from a stream the test writes to (as piped stdin), the
 * agent is a scripted runner, and what the terminal prints is captured.
 * The access policy is the real one (no allow-all): the terminal's owner is
 * let in by construction.
 */
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { stringify } from "yaml";
import { LineInput, TerminalAdapter } from "../../adapters/terminal/index.js";
import type { Clock } from "../../agent/types.js";
import { buildConfig, type Config, type ConfigInput } from "../../config/index.js";
import { systemClock } from "../../config/timing/index.js";
import { createRuntime, type Runtime } from "../../gateway/runtime/index.js";
import { TERMINAL_OWNER } from "../../gateway/runtime/platform-settings.js";
import { openStore, type Store } from "../../gateway/store/index.js";
import { runtimeStoreOver } from "../../gateway/wiring/runtime-store.js";
import { type Script, ScriptedRunner } from "../runtime/helpers/scripted-runner.js";

export interface TerminalHarnessOptions {
  readonly script: Script;
  readonly config?: ConfigInput;
  readonly clock?: Clock;
  /** False: a one-shot run with nobody to ask (no input). */
  readonly input?: boolean;
  readonly streamAnswers?: boolean;
  /** Lines are sent as they come (a person at a terminal), not only once a turn is over. */
  readonly liveInput?: boolean;
}

export interface TerminalHarness {
  readonly terminal: TerminalAdapter;
  readonly runtime: Runtime;
  readonly runner: ScriptedRunner;
  readonly raw: Store;
  readonly config: Config;
  /** What the person types (or pipes in). */
  readonly stdin: PassThrough;
  /** Prompts shown and lines taken, in order (a taken line as ">line"). */
  readonly shown: string[];
  out(): string;
  err(): string;
  close(): Promise<void>;
}

export async function terminalHarness(o: TerminalHarnessOptions): Promise<TerminalHarness> {
  const config = buildConfig({
    yamlText: stringify({ gateway: { drain_timeout_s: 0.2 }, ...(o.config ?? {}) }),
    file: null,
    env: {},
    home: "/tmp/hgw-terminal-test",
  });
  const clock = o.clock ?? systemClock;
  const stdin = new PassThrough();
  const shown: string[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const rl = createInterface({ input: stdin, terminal: false });
  const terminal = new TerminalAdapter({
    platform: TERMINAL_OWNER.platform,
    user: { userId: TERMINAL_OWNER.userId, displayName: "owner" },
    input: o.input === false ? null : new LineInput(rl, { prompt: (p) => shown.push(p), echo: (l) => shown.push(`>${l}`) }),
    streams: { out: (t) => void out.push(t), err: (t) => void err.push(t) },
    streamAnswers: o.streamAnswers ?? false,
    liveInput: o.liveInput ?? false,
    approvalTimeoutS: config.approvals.timeout_s,
    clock,
  });
  const raw = openStore(":memory:");
  const runner = new ScriptedRunner(o.script);
  const logger = pino({ level: process.env.HGW_TEST_LOG ?? "silent" });
  const runtime = createRuntime({
    config,
    logger,
    store: runtimeStoreOver(raw),
    runner,
    adapters: new Map([[terminal.platform, terminal]]),
    clock,
    recover: false,
  });
  await terminal.start(runtime.sink);
  await runtime.start();
  return {
    terminal,
    runtime,
    runner,
    raw,
    config,
    stdin,
    shown,
    out: () => out.join(""),
    err: () => err.join(""),
    async close() {
      await runtime.stop("shutdown");
      await terminal.stop();
      rl.close();
      raw.close();
    },
  };
}
