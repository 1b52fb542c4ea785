/**
 * The systemd unit `hermes-gateway service install` writes, as a pure
 * function of where things are. Absolute paths to Node and to the entry, so
 * the unit does not depend on the service manager's PATH (a Node installed by
 * a version manager is not on it); the exit codes the daemon uses to talk to
 * its supervisor; a stop timeout above the drain.
 */

export const UNIT_NAME = "hermes-gateway.service";

/** The state directory a system unit gets when no HERMES_HOME is given (systemd creates it, owned by the service user). */
export const SYSTEM_STATE_DIR = "/var/lib/hermes-gateway";

export interface UnitSpec {
  readonly scope: "user" | "system";
  /** Absolute path of the Node binary. */
  readonly node: string;
  /** Absolute path of the CLI entry (dist/gateway/cli.js). */
  readonly entry: string;
  /** Absolute path given with --config, if any. */
  readonly configPath?: string;
  readonly home: string;
  readonly drainTimeoutS: number;
  /** PATH for the daemon's tools and MCP servers (the installing shell's, the Node binary's directory first). */
  readonly path: string;
  /** System units: the account the daemon runs as. */
  readonly user?: string;
}

/**
 * systemd's stop timeout: the daemon bounds its own stop at the drain plus 15 s
 * (adapters, store, MCP servers), so this leaves room for both before SIGKILL.
 */
export function stopTimeoutS(drainTimeoutS: number): number {
  return Math.max(60, Math.ceil(drainTimeoutS)) + 30;
}

export function renderUnit(spec: UnitSpec): string {
  const system = spec.scope === "system";
  const exec = [spec.node, spec.entry, "run", ...(spec.configPath ? ["--config", spec.configPath] : [])];
  return [
    "# Written by `hermes-gateway service install`. Run that again after upgrading Node or hermes-gateway,",
    "# or after changing gateway.drain_timeout_s: it rewrites this file and restarts the service with a drain.",
    "[Unit]",
    "Description=hermes-gateway (AI agent for Telegram, Discord, Slack)",
    // A system manager knows when the network is up; a user manager does not (the target means nothing there).
    ...(system ? ["After=network-online.target", "Wants=network-online.target"] : []),
    "StartLimitIntervalSec=0",
    "",
    "[Service]",
    "Type=simple",
    ...(system && spec.user ? [`User=${spec.user}`, `Group=${spec.user}`] : []),
    ...(system && spec.home === SYSTEM_STATE_DIR ? ["StateDirectory=hermes-gateway", "StateDirectoryMode=0700"] : []),
    environment("HERMES_HOME", spec.home),
    environment("PATH", spec.path),
    "# Two malloc arenas instead of glibc's 8 per core: freed native memory goes back instead of staying per thread.",
    "Environment=MALLOC_ARENA_MAX=2",
    "# Any CPU setting gives the unit a cpu cgroup of its own, where the MCP servers' SCHED_IDLE keeps them from",
    "# ever delaying the chat loop (the weight is systemd's default).",
    "CPUWeight=100",
    "UMask=0077",
    `ExecStart=${exec.map(execArg).join(" ")}`,
    "# Reload = restart with a drain: SIGUSR1 makes the daemon drain and exit 75, and systemd starts it again.",
    "ExecReload=/bin/kill -USR1 $MAINPID",
    "Restart=always",
    "RestartSec=5",
    "# 75: restart requested (SIGUSR1); 78: invalid configuration, which a restart cannot fix.",
    "RestartForceExitStatus=75",
    "RestartPreventExitStatus=78",
    "# SIGTERM to the daemon alone: it drains (up to gateway.drain_timeout_s) and stops its MCP servers itself.",
    "KillMode=mixed",
    "KillSignal=SIGTERM",
    `TimeoutStopSec=${stopTimeoutS(spec.drainTimeoutS)}`,
    "",
    "[Install]",
    `WantedBy=${system ? "multi-user.target" : "default.target"}`,
    "",
  ].join("\n");
}

/** `Environment=` with systemd's quoting: `%` starts a specifier there, `"` and `\` are escaped inside quotes. */
function environment(name: string, value: string): string {
  return `Environment="${name}=${value.replace(/[\\"]/g, "\\$&").replace(/%/g, "%%")}"`;
}

/** One word of `ExecStart=`: quoted when it must be; `$` and `%` would otherwise be expanded. */
function execArg(arg: string): string {
  const escaped = arg.replace(/%/g, "%%").replace(/\$/g, "$$$$");
  return /^[\w@%+=:,./$-]+$/.test(escaped) ? escaped : `"${escaped.replace(/[\\"]/g, "\\$&")}"`;
}
