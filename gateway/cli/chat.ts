/**
 * `hermes-gateway chat`: the agent in the terminal, on platform `cli`,
 * through the same runtime as the daemon (gateway/wiring/chat.ts). One turn
 * with `-q` — the final answer on stdout, exit 0 once answered, 1 when the
 * turn failed or was interrupted — or the REPL until /exit or the end of input.
 * Ctrl-C interrupts the running turn (as /stop); a second one exits.
 */
import { userInfo } from "node:os";
import { createInterface, type Interface } from "node:readline";
import { pino } from "pino";
import { type LineDisplay, LineInput, type TerminalAdapter } from "../../adapters/terminal/index.js";
import { HermesError } from "../../config/errors.js";
import { type Config, collectSecrets } from "../../config/index.js";
import { createLogger } from "../log.js";
import { type AgentSide, configuredAgentSide } from "../wiring/agent.js";
import { type ChatRun, startChat, terminalAdapter } from "../wiring/chat.js";
import type { ParsedCli } from "./command-args.js";
import { type CliIo, ensureHome, loadOrReport, packageVersion, resolveHome } from "./context.js";
import { EXIT } from "./exit-codes.js";

type Env = Readonly<Record<string, string | undefined>>;

const NOT_CONFIGURED_HINT =
  "To chat with a local OpenAI-compatible server (llama.cpp, Ollama, vLLM), set in $HERMES_HOME/config.yaml:\n" +
  "  model:\n    provider: custom\n    base_url: http://127.0.0.1:8080/v1\n    model: your-model-name\n" +
  "or set an API key for a hosted provider (e.g. OPENROUTER_API_KEY).";

export async function chatCommand(cli: ParsedCli, env: Env, io: CliIo): Promise<number> {
  const query = cli.values.query;
  if (query !== undefined && query.trim() === "") {
    io.err('chat: -q needs the message to send, e.g. hermes-gateway chat -q "what is in this directory?"');
    return EXIT.USAGE;
  }
  const home = resolveHome(env);
  await ensureHome(home);
  const config = await loadOrReport(home, cli.values.config, env, io);
  if (!config) return EXIT.CONFIG;
  const logger = createLogger({
    level: chatLogLevel(config),
    format: "json",
    secrets: collectSecrets(config),
    destination: pino.destination({ dest: 2, sync: true }),
  });
  let agent: AgentSide;
  try {
    agent = configuredAgentSide(config, logger);
  } catch (err) {
    if (!(err instanceof HermesError)) throw err;
    io.err(`hermes-gateway chat: ${err.message}\n\n${NOT_CONFIGURED_HINT}`);
    return EXIT.FAILURE;
  }

  const tty = process.stdin.isTTY === true;
  // -q reads stdin only when a person is there to answer questions; the REPL always reads it (terminal or pipe).
  const rl = query === undefined || tty ? openReadline(tty) : null;
  const terminal = terminalAdapter(config, {
    userName: localUserName(),
    input: rl ? new LineInput(rl, lineDisplay(rl, tty)) : null,
    streams: { out: (t) => void process.stdout.write(t), err: (t) => void process.stderr.write(t) },
    streamAnswers: query === undefined,
    // A person at a terminal may send a message while the agent works (the busy mode decides); a pipe takes turns.
    liveInput: tty && query === undefined,
  });
  let run: ChatRun | null = null;
  const offInterrupt = onInterrupt(rl, () => {
    const action = terminal.interrupt();
    if (action === "end-input") rl?.close();
    if (action === "exit-now") {
      run?.killChildrenNow();
      process.exit(EXIT.FAILURE);
    }
  });
  try {
    run = await startChat({ config, logger, version: await packageVersion(), agent, terminal, cwd: process.cwd(), resume: cli.values.resume });
  } catch (err) {
    offInterrupt();
    rl?.close();
    await agent.providers?.close();
    if (!(err instanceof HermesError)) throw err;
    io.err(`hermes-gateway chat: ${err.message}`);
    return EXIT.FAILURE;
  }
  try {
    await run.mcpDiscovered();
    return query !== undefined ? await oneShot(terminal, run, query) : await repl(terminal, run);
  } finally {
    offInterrupt();
    rl?.close();
    await run.stop();
  }
}

async function oneShot(terminal: TerminalAdapter, run: ChatRun, query: string): Promise<number> {
  const outcome = await terminal.say(query);
  const id = run.session()?.id;
  if (outcome === "interrupted") {
    process.stderr.write(`The turn was interrupted.${id ? ` Continue with: hermes-gateway chat --resume ${id}` : ""}\n`);
    return EXIT.FAILURE;
  }
  if (outcome === "failed") return EXIT.FAILURE;
  if (id) process.stderr.write(`session: ${id}\n`);
  return EXIT.OK;
}

async function repl(terminal: TerminalAdapter, run: ChatRun): Promise<number> {
  const resumed = run.session();
  process.stderr.write(
    `hermes-gateway chat — ${resumed ? `session ${resumed.id} (resumed, ${resumed.messages} messages)` : "new session"}. /help for commands.\n`,
  );
  await terminal.converse();
  const id = run.session()?.id;
  process.stderr.write(id ? `bye — resume with: hermes-gateway chat --resume ${id}\n` : "bye\n");
  return EXIT.OK;
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
 * the process signal otherwise; both go to `handler`. Returns the unregister function.
 */
function onInterrupt(rl: Interface | null, handler: () => void): () => void {
  const on = () => handler();
  process.on("SIGINT", on);
  rl?.on("SIGINT", on);
  return () => {
    process.off("SIGINT", on);
    rl?.off("SIGINT", on);
  };
}

function localUserName(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

/** The chat shares the terminal with the person: below warn only when asked for debugging. */
function chatLogLevel(config: Config): Config["logging"]["level"] {
  const level = config.logging.level;
  return level === "info" ? "warn" : level;
}
