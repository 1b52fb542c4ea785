/**
 * `hermes-gateway status [--json]`: whether a daemon runs for this
 * HERMES_HOME and how it is doing, on one screen. It reads the pid file the
 * daemon holds and asks the daemon itself (GET /status on the configured
 * address); the two together tell "not running" from "running but stuck".
 * Exit codes as `systemctl status` has them: 0 healthy, 1 degraded, 3 not running.
 */
import type { Config } from "../../config/index.js";
import { readPidFile } from "../pid-file.js";
import type { DaemonStatus } from "../status-endpoint.js";
import { parseCommandArgs } from "./command-args.js";
import { type CliIo, loadOrReport, resolveHome } from "./context.js";
import { daemonGet, daemonUrl } from "./daemon-url.js";
import { EXIT } from "./exit-codes.js";
import { renderStatus, type StatusReport } from "./status-render.js";

export const STATUS_USAGE = `Usage: hermes-gateway status [--json] [--config PATH]

Whether a daemon runs for this HERMES_HOME and how it is doing: pid, uptime, version, readiness checks,
each platform's state and last receive, turns running and queued, MCP servers, the store's size.
It reads $HERMES_HOME/gateway.pid and asks the daemon's GET /status on the configured address
(gateway.http; loopback only, with gateway.platforms.api.key when that is set).

Options:
  --json          one JSON object on stdout, for scripts
  --config PATH   config file (default: $HERMES_HOME/config.yaml)
  -h, --help      show this help

Exit codes: 0 running and healthy, 1 running but degraded (a check not ready, draining, or not answering),
3 not running, 78 invalid configuration.`;

/** How long status waits for the daemon's answer. */
const STATUS_TIMEOUT_MS = 3_000;

export async function statusCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const args = parseCommandArgs<{ json?: boolean; config?: string }>(argv, { json: { type: "boolean" }, config: { type: "string" } }, STATUS_USAGE, io);
  if (typeof args === "number") return args;
  const home = resolveHome(env);
  const config = await loadOrReport(home, args.values.config, env, io);
  if (!config) return EXIT.CONFIG;
  const report = await probe(home, config);
  io.out(args.values.json ? JSON.stringify(report, null, 2) : renderStatus(report));
  if (!report.running) return EXIT.NOT_RUNNING;
  return report.healthy ? EXIT.OK : EXIT.FAILURE;
}

async function probe(home: string, config: Config): Promise<StatusReport> {
  const url = daemonUrl(config);
  const [file, answer] = await Promise.all([readPidFile(home), askDaemon(url, config)]);
  const pid = file.kind === "pid" ? file.pid : null;
  const base = { home, url, pid };
  // A daemon of another HERMES_HOME may answer on the same port: it says nothing about this one.
  const other = answer.status && answer.status.home !== home ? `the daemon answering at ${url} serves another HERMES_HOME (${answer.status.home})` : null;
  const daemon = other ? null : (answer.status ?? null);
  const holder = file.kind === "unreadable" || (file.kind === "pid" && file.alive);
  if (!holder && !daemon) {
    const why =
      file.kind === "pid" ? `${file.path} names pid ${file.pid}, which is gone (the daemon stopped without removing it)` : `no daemon holds ${file.path}`;
    return { ...base, running: false, healthy: false, problem: `not running: ${why}${other ? `; ${other}` : ""}`, daemon: null };
  }
  if (!daemon) {
    const who = file.kind === "pid" ? `pid ${file.pid} holds ${file.path}` : file.kind === "unreadable" ? file.why : "the daemon runs";
    return {
      ...base,
      running: true,
      healthy: false,
      problem: `${who}, but ${other ?? answer.problem} (starting, stuck, or listening elsewhere)`,
      daemon: null,
    };
  }
  return { ...base, pid: pid ?? daemon.pid, running: true, healthy: daemon.healthy, problem: daemon.healthy ? null : degradation(daemon), daemon };
}

/** The daemon's /status, or why there is none. */
async function askDaemon(url: string, config: Config): Promise<{ status?: DaemonStatus; problem: string }> {
  const key = config.gateway.platforms.api.key;
  const answer = await daemonGet(`${url}/status`, STATUS_TIMEOUT_MS, key ? { authorization: `Bearer ${key}` } : {});
  if (!answer) return { problem: `nothing answers at ${url}` };
  const body = answer.body as (Partial<DaemonStatus> & { error?: string }) | null;
  if (answer.status === 200 && body && typeof body.pid === "number") return { status: body as DaemonStatus, problem: "" };
  return { problem: `${url}/status answered ${answer.status}${body?.error ? `: ${body.error}` : ""}` };
}

function degradation(d: DaemonStatus): string {
  const parts: string[] = [];
  if (d.state !== "running") parts.push(d.state);
  const notReady = d.checks.filter((c) => !c.ready).map((c) => c.name);
  if (notReady.length > 0) parts.push(`not ready: ${notReady.join(", ")}`);
  return `degraded (${parts.join("; ")})`;
}
