/**
 * `hermes-gateway healthcheck`: exit 0 when the daemon's GET /healthz answers
 * on the configured address, 1 otherwise. The container image's HEALTHCHECK
 * runs it, so the check follows `gateway.http.port` (config.yaml, .env or
 * HERMES_HTTP_PORT) instead of assuming the default port.
 */
import { parseCommandArgs } from "./command-args.js";
import { type CliIo, loadOrReport, resolveHome } from "./context.js";
import { daemonGet, daemonUrl } from "./daemon-url.js";
import { EXIT } from "./exit-codes.js";

export const HEALTHCHECK_USAGE = `Usage: hermes-gateway healthcheck [--config PATH]

Exit 0 when the daemon's GET /healthz answers 200 on the configured address (gateway.http), 1 when it does not.
For container and supervisor health checks; \`hermes-gateway status\` tells more.

Options:
  --config PATH   config file (default: $HERMES_HOME/config.yaml)
  -h, --help      show this help`;

const TIMEOUT_MS = 4_000;

export async function healthcheckCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const args = parseCommandArgs<{ config?: string }>(argv, { config: { type: "string" } }, HEALTHCHECK_USAGE, io);
  if (typeof args === "number") return args;
  const config = await loadOrReport(resolveHome(env), args.values.config, env, io);
  if (!config) return EXIT.CONFIG;
  const url = `${daemonUrl(config)}/healthz`;
  const answer = await daemonGet(url, TIMEOUT_MS);
  if (answer?.status === 200) {
    io.out(`ok: ${url}`);
    return EXIT.OK;
  }
  io.err(answer ? `${url} answered ${answer.status}` : `nothing answers at ${url}`);
  return EXIT.FAILURE;
}
