/**
 * `hermes-gateway chat`: the agent in the terminal, on platform `cli` with
 * the configured `toolsets`. Builds the provider, store and tool system,
 * opens or resumes a session, runs one turn (`-q`) or the REPL, and tears
 * everything down in reverse (background processes killed, store closed).
 */
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { pino, type Logger } from "pino";
import { createStreamFn, type ProviderRuntime } from "../../agent/providers/index.js";
import { HermesError } from "../../config/errors.js";
import { collectSecrets, type Config } from "../../config/index.js";
import { ensureHome, loadOrReport, resolveHome, type CliIo } from "../cli/context.js";
import { EXIT } from "../cli/exit-codes.js";
import type { ParsedCli } from "../cli/main.js";
import { Compression } from "../compression.js";
import { childSessionsOver } from "../delegation.js";
import { createLogger } from "../log.js";
import { systemClock } from "../runtime/clock.js";
import { openStore, type Store } from "../store/index.js";
import { createToolSystem, type ToolSystem } from "../tools.js";
import { LineInput, type LineDisplay } from "./line-input.js";
import { runOneShot } from "./one-shot.js";
import { runRepl } from "./repl.js";
import { resumeSession, startSession, type ChatDeps, type ChatSession } from "./session.js";

type Env = Readonly<Record<string, string | undefined>>;

const NOT_CONFIGURED_HINT =
  "To chat with a local OpenAI-compatible server (llama.cpp, Ollama, vLLM), set in $HERMES_HOME/config.yaml:\n" +
  "  model:\n    provider: custom\n    base_url: http://127.0.0.1:8080/v1\n    model: your-model-name\n" +
  "or set an API key for a hosted provider (e.g. OPENROUTER_API_KEY).";

export async function chatCommand(cli: ParsedCli, env: Env, io: CliIo): Promise<number> {
  if (cli.values.query !== undefined && cli.values.query.trim() === "") {
    io.err("chat: -q needs the message to send, e.g. hermes-gateway chat -q \"what is in this directory?\"");
    return EXIT.USAGE;
  }
  const home = resolveHome(env);
  await ensureHome(home);
  const config = await loadOrReport(home, cli.values.config, env, io);
  if (!config) return EXIT.CONFIG;
  const logger = createLogger({ level: chatLogLevel(config), format: "json", secrets: collectSecrets(config), destination: pino.destination({ dest: 2, sync: true }) });
  let provider: ProviderRuntime;
  try {
    provider = createStreamFn(config, { home, logger });
  } catch (err) {
    if (!(err instanceof HermesError)) throw err;
    io.err(`hermes-gateway chat: ${err.message}\n\n${NOT_CONFIGURED_HINT}`);
    return EXIT.FAILURE;
  }
  const store = openStore(join(home, "state.db"), { logger });
  const tools = createToolSystem(config, { logger, approvals: store.approvals, auxiliary: provider.auxiliary, env, stream: provider.stream, childSessions: childSessionsOver(store) });
  const compression = new Compression({ config, auxiliary: provider.auxiliary, contextLength: (model) => provider.contextLengthFor(model), logger });
  try {
    return await runChat({ config, store, provider, tools, compression, cwd: process.cwd(), clock: systemClock, logger }, cli, io);
  } finally {
    await closeAll(tools, provider, store, logger);
  }
}

async function runChat(deps: ChatDeps, cli: ParsedCli, io: CliIo): Promise<number> {
  const interactive = cli.values.query === undefined;
  const tty = process.stdin.isTTY === true;
  // -q reads stdin only when a person is there to answer; the REPL always reads it (terminal or pipe).
  const rl = interactive || tty ? openReadline(tty) : null;
  const input = rl ? new LineInput(rl, lineDisplay(rl, tty)) : null;
  const streams = { out: (t: string) => void process.stdout.write(t), err: (t: string) => void process.stderr.write(t) };
  const onInterrupt = interruptSource(rl);
  const forceExit = () => process.exit(EXIT.FAILURE);
  try {
    const session = await openSession(deps, cli.values.resume, io);
    if (!session) return EXIT.FAILURE;
    if (cli.values.query !== undefined) return await runOneShot(deps, session, cli.values.query, { ...streams, input, onInterrupt, forceExit });
    if (!input || !rl) return EXIT.FAILURE;
    return await runRepl(deps, session, { ...streams, input, onInterrupt, forceExit, closeInput: () => rl.close() });
  } finally {
    rl?.close();
  }
}

async function openSession(deps: ChatDeps, resume: string | undefined, io: CliIo): Promise<ChatSession | null> {
  try {
    const session = resume ? await resumeSession(deps, resume) : await startSession(deps);
    for (const notice of session.notices ?? []) io.err(`${notice}\n`);
    return session;
  } catch (err) {
    if (!(err instanceof HermesError)) throw err;
    io.err(`hermes-gateway chat: ${err.message}`);
    return null;
  }
}

function openReadline(tty: boolean): Interface {
  // On a terminal, readline edits the line on stderr so stdout carries only answers.
  return createInterface({ input: process.stdin, ...(tty ? { output: process.stderr } : {}), terminal: tty });
}

function lineDisplay(rl: Interface, tty: boolean): LineDisplay {
  if (!tty) return { prompt: (p) => void process.stderr.write(p), echo: (line) => void process.stderr.write(`${line}\n`) };
  return {
    prompt: (p) => {
      rl.setPrompt(p);
      rl.prompt();
    },
  };
}

/**
 * Ctrl-C reaches us as readline's SIGINT event on a terminal (raw mode) and as
 * the process signal otherwise; both go to the current handler.
 */
function interruptSource(rl: Interface | null): (handler: () => void) => () => void {
  return (handler) => {
    const on = () => handler();
    process.on("SIGINT", on);
    rl?.on("SIGINT", on);
    return () => {
      process.off("SIGINT", on);
      rl?.off("SIGINT", on);
    };
  };
}

/** The chat shares the terminal with the user: below warn only when asked for debugging. */
function chatLogLevel(config: Config): Config["logging"]["level"] {
  const level = config.logging.level;
  return level === "info" ? "warn" : level;
}

/** Reverse of construction; each step runs even when an earlier one failed. */
async function closeAll(tools: ToolSystem, provider: ProviderRuntime, store: Store, logger: Logger): Promise<void> {
  const steps: [string, () => Promise<void> | void][] = [
    ["background processes", () => tools.shutdown()],
    ["credential state and connections", () => provider.close()],
    ["store", () => store.close()],
  ];
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (err) {
      logger.error({ err }, `could not close the ${name}`);
    }
  }
}
