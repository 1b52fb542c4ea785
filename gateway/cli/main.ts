/**
 * Argument parsing and dispatch for the `hermes-gateway` command.
 * Exit codes: 0 clean stop, 1 unexpected failure, 3 not running (status), 64 usage, 75 restart requested, 78 fatal config.
 */
import { type ParsedCli, parseCli } from "./command-args.js";
import { COMMAND_HELP } from "./command-help.js";
import { type CliIo, packageVersion, processIo } from "./context.js";
import { EXIT } from "./exit-codes.js";

export const HELP = `hermes-gateway — an AI agent with tools in Telegram, Discord, Slack and an OpenAI-compatible API

Usage: hermes-gateway [command] [options]

Commands:
  run                       start the daemon (default)
  doctor                    check config, store, providers, platforms and MCP servers; one line each
  config check              validate the configuration and exit
  chat                      talk to the agent in this terminal (interactive; /exit quits)
  chat -q "MESSAGE"         one turn: the answer on stdout, progress on stderr
  chat --resume ID|TITLE    continue a stored session (with or without -q)
  sessions list             list recent sessions   [--limit N] [--source PLATFORM]
  sessions search QUERY     full-text search over stored messages   [--limit N]
  sessions export ID...     sessions as ShareGPT trajectory JSONL on stdout
  pairing list [PLATFORM]   pending pairing requests and approved users
  pairing approve PLATFORM CODE    let the user who got CODE use the bot
  pairing revoke PLATFORM USER_ID  take that access away again
  setup                     first-run wizard: provider, platform tokens, allowlist → config.yaml and .env
  service install           run under systemd (user unit; --system for a system unit; --dry-run prints it)
  service uninstall|restart|logs [-f]   remove the unit, restart with a drain, show the journal
  status [--json]           is a daemon running for this HERMES_HOME, and healthy (exit 0/1/3)
  healthcheck               exit 0 when the daemon's /healthz answers (container health checks)
  cron list                 scheduled jobs with their last runs   [--limit N]
  cron add SCHEDULE PROMPT  schedule a prompt ("every 30m", "0 9 * * *", "45m", "2026-12-24T09:00")
                            [--deliver TARGET] [--name NAME] [--model MODEL] [--timezone TZ]
  cron rm ID                remove a job
  cron run ID               run a job now (the running gateway starts it)

Options:
  --config PATH             config file (default: $HERMES_HOME/config.yaml)
  -h, --help                show this help
  -v, --version             print the version

Environment:
  HERMES_HOME               state directory (default ~/.hermes): config.yaml, .env, state.db
  See docs/configuration.md for every configuration key and environment override.

Every command has its own --help: hermes-gateway <command> --help.
Exit codes: 0 stopped cleanly, 1 unexpected failure, 3 not running (status), 64 bad usage, 75 restart requested,
78 invalid configuration.
`;

type Command = (argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo) => Promise<number>;

/** Commands that parse their own options (each has --help); loaded only when run. */
export const OWN_OPTIONS: Readonly<Record<string, () => Promise<Command>>> = {
  setup: async () => (await import("./setup.js")).setupCommand,
  service: async () => (await import("./service.js")).serviceCommand,
  status: async () => (await import("./status.js")).statusCommand,
  healthcheck: async () => (await import("./healthcheck.js")).healthcheckCommand,
};

/** A command whose options main parses: its --help, and how it runs (null: the arguments are no form of it). */
interface CommandSpec {
  readonly help: string;
  run(rest: readonly string[], cli: ParsedCli, env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number | null>;
}

/** The commands besides OWN_OPTIONS. Each loads only what it needs: `--help`, `config check` and the like stay instant. */
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  run: { help: COMMAND_HELP.run, run: async (_rest, cli, env, io) => (await import("./run.js")).runCommand(cli, env, io) },
  doctor: { help: COMMAND_HELP.doctor, run: async (_rest, cli, env, io) => (await import("./doctor.js")).doctorCommand(cli, env, io) },
  config: {
    help: COMMAND_HELP.config,
    run: async (rest, cli, env, io) => (rest[0] === "check" ? (await import("./doctor.js")).configCheckCommand(cli, env, io) : null),
  },
  sessions: { help: COMMAND_HELP.sessions, run: async (rest, cli, env, io) => (await import("./sessions.js")).sessionsCommand(rest, cli, env, io) },
  pairing: { help: COMMAND_HELP.pairing, run: async (rest, _cli, env, io) => (await import("./pairing.js")).pairingCommand(rest, env, io) },
  cron: { help: COMMAND_HELP.cron, run: async (rest, cli, env, io) => (await import("./cron.js")).cronCommand(rest, cli, env, io) },
  chat: { help: COMMAND_HELP.chat, run: async (rest, cli, env, io) => (rest.length === 0 ? (await import("./chat.js")).chatCommand(cli, env, io) : null) },
};

export async function main(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo = processIo): Promise<number> {
  const own = argv[0] !== undefined && Object.hasOwn(OWN_OPTIONS, argv[0]) ? OWN_OPTIONS[argv[0]] : undefined;
  if (own) return (await own())(argv.slice(1), env, io);
  let cli: ParsedCli;
  try {
    cli = parseCli(argv);
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${HELP}`);
    return EXIT.USAGE;
  }
  if (cli.values.help) {
    io.out(commandOf(cli.command[0])?.help ?? HELP);
    return EXIT.OK;
  }
  if (cli.values.version) {
    io.out(await packageVersion());
    return EXIT.OK;
  }
  const [command = "run", ...rest] = cli.command;
  const code = await commandOf(command)?.run(rest, cli, env, io);
  if (code !== undefined && code !== null) return code;
  io.err(`unknown command: ${cli.command.join(" ")}\n\n${HELP}`);
  return EXIT.USAGE;
}

function commandOf(name: string | undefined): CommandSpec | undefined {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}
