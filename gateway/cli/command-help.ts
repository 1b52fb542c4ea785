/**
 * What `hermes-gateway <command> --help` prints for the commands whose
 * options main.ts parses (setup, service, status and healthcheck parse their
 * own and keep their help beside their code).
 */

const CONFIG_OPTION = "  --config PATH    config file (default: $HERMES_HOME/config.yaml)";

export const COMMAND_HELP = {
  run: `Usage: hermes-gateway run [--config PATH]

Starts the daemon in the foreground (the default command): the store, the tools, MCP servers, the HTTP server
(/healthz, /readyz, /metrics, the OpenAI-compatible API), the enabled platforms, then the runtime. Logs go to stdout.
SIGTERM or SIGINT stop it gracefully (exit 0; a second signal exits at once with 1); SIGUSR1 stops it and exits 75,
for a supervisor to start it again. An invalid configuration exits 78; the HTTP port held by another process,
1 with HGW_ERR_PORT_IN_USE.

Options:
${CONFIG_OPTION}
`,
  doctor: `Usage: hermes-gateway doctor [--config PATH]

Checks the configuration, the store, the providers, the platforms and the MCP servers, one line each, and says
what to fix. Exit 0 when the store opens (the other lines are advice), 1 when it does not, 78 on an invalid
configuration.

Options:
${CONFIG_OPTION}
`,
  config: `Usage: hermes-gateway config check [--config PATH]

Loads and validates the configuration (config.yaml, HERMES_HOME/.env and the environment) and exits: 0 when it is
valid, 78 listing every problem with its key and line.

Options:
${CONFIG_OPTION}
`,
  chat: `Usage: hermes-gateway chat [-q MESSAGE] [--resume ID|TITLE] [--config PATH]

Talks to the agent in this terminal, with the daemon's agent, tools and store. Interactive by default (/exit quits);
with -q, one turn: the answer on stdout, progress on stderr.

Options:
  -q, --query MESSAGE      one turn with this message, then exit
  --resume ID|TITLE        continue a stored session
${CONFIG_OPTION}
`,
  sessions: `Usage: hermes-gateway sessions list [--limit N] [--source PLATFORM]
       hermes-gateway sessions search QUERY [--limit N]
       hermes-gateway sessions export ID|TITLE...

list     recent sessions (default 20), newest first
search   full-text search over stored messages
export   the sessions as ShareGPT trajectory JSONL on stdout

Options:
  --limit N                how many to show
  --source PLATFORM        only sessions from this platform (list)
${CONFIG_OPTION}
`,
  pairing: `Usage: hermes-gateway pairing list [PLATFORM]
       hermes-gateway pairing approve PLATFORM CODE
       hermes-gateway pairing revoke PLATFORM USER_ID

list      pending pairing requests and approved users
approve   let the user who was sent CODE use the bot
revoke    take that access away again
`,
  cron: `Usage: hermes-gateway cron list [--limit N]
       hermes-gateway cron add SCHEDULE PROMPT... [--deliver TARGET] [--name NAME] [--model MODEL] [--timezone TZ]
       hermes-gateway cron rm ID
       hermes-gateway cron run ID

list   scheduled jobs with their last runs (--limit: runs per job, default 5)
add    schedule a prompt: a cron expression ("0 9 * * *"), an interval ("every 30m"), a delay ("45m") or a time
       ("2026-12-24T09:00"); --deliver says where the output goes (origin, a platform's home channel, or
       platform:chat_id[:thread_id])
rm     remove a job
run    run a job now (the running gateway starts it)

Options:
${CONFIG_OPTION}
`,
} as const;
