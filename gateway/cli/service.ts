/**
 * `hermes-gateway service install|uninstall|restart|logs`: the daemon as a
 * systemd service, user unit by default, system unit on request.
 */
import { access, realpath } from "node:fs/promises";
import { homedir, userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseCommandArgs } from "./command-args.js";
import { type CliIo, loadOrReport, resolveHome } from "./context.js";
import { EXIT } from "./exit-codes.js";
import { type InstallPlan, installUnit, removeUnit } from "./service-install.js";
import { type Env, exec, execAttached, managerProblem, systemctl } from "./service-systemd.js";
import { renderUnit, SYSTEM_STATE_DIR, UNIT_NAME, type UnitSpec } from "./service-unit.js";

export const SERVICE_USAGE = `Usage: hermes-gateway service install [--system [--user NAME]] [--dry-run] [--config PATH]
       hermes-gateway service uninstall|restart [--system]
       hermes-gateway service logs [-f] [--system]

The daemon as a systemd service.

  install     writes the unit (absolute paths to this Node and this hermes-gateway, HERMES_HOME, restarted on
              exit 75 and never on 78, a stop timeout above gateway.drain_timeout_s), reloads systemd, enables
              and starts it. Running it again updates the unit and, when it changed, restarts the service with a
              drain. A user unit (~/.config/systemd/user) by default; it turns on lingering (loginctl
              enable-linger) so the service keeps running after you log out, or says how when it may not.
              Where systemd does not run it refuses and prints the unit instead.
  uninstall   stops the service (with a drain), disables it and removes the unit; HERMES_HOME stays.
  restart     restarts with a drain: the daemon gets SIGUSR1, finishes its running turns (up to
              gateway.drain_timeout_s), exits 75, and systemd starts it again (a stopped service is started).
  logs        the service's journal (journalctl, last 200 lines); -f follows it.

Options:
  --system        a system unit (/etc/systemd/system; needs root), started at boot, running as a dedicated account;
                  HERMES_HOME defaults to ${SYSTEM_STATE_DIR} there. uninstall, restart and logs pick the
                  installed unit (the user one first); --system picks the system one.
  --user NAME     with --system: the account the daemon runs as (default: hermes; created when missing)
  --dry-run       print the unit and the commands install would run; change nothing
  -f, --follow    logs: follow the journal
  --config PATH   config file the service runs with (default: $HERMES_HOME/config.yaml)
  -h, --help      show this help`;

interface ServiceArgs {
  system?: boolean;
  user?: string;
  "dry-run"?: boolean;
  follow?: boolean;
  config?: string;
}

const OPTIONS = {
  system: { type: "boolean" },
  user: { type: "string" },
  "dry-run": { type: "boolean" },
  follow: { type: "boolean", short: "f" },
  config: { type: "string" },
} as const;

export async function serviceCommand(argv: readonly string[], env: Env, io: CliIo): Promise<number> {
  const args = parseCommandArgs<ServiceArgs>(argv, OPTIONS, SERVICE_USAGE, io);
  if (typeof args === "number") return args;
  const [sub, ...extra] = args.positionals;
  const a = args.values;
  const misuse =
    extra.length > 0
      ? `unexpected: ${extra.join(" ")}`
      : a.user !== undefined && !(sub === "install" && a.system)
        ? "--user NAME goes with install --system (a user unit runs as you)"
        : null;
  if (misuse) return usage(io, misuse);
  switch (sub) {
    case "install":
      return install(a, env, io);
    case "uninstall":
    case "restart":
    case "logs":
      return onInstalled(sub, a, env, io);
    default:
      return usage(io, sub ? `unknown service command: ${sub}` : "which service command?");
  }
}

function usage(io: CliIo, why: string): number {
  io.err(`${why}\n\n${SERVICE_USAGE}`);
  return EXIT.USAGE;
}

/** Where a unit of `scope` lives: the user manager's config directory, or /etc. */
export function unitPath(scope: "user" | "system", env: Env): string {
  if (scope === "system") return join("/etc/systemd/system", UNIT_NAME);
  const config = env.XDG_CONFIG_HOME?.trim() || join(env.HOME?.trim() || homedir(), ".config");
  return join(config, "systemd", "user", UNIT_NAME);
}

async function install(a: ServiceArgs, env: Env, io: CliIo): Promise<number> {
  const scope = a.system ? "system" : "user";
  const home = scope === "system" && !env.HERMES_HOME?.trim() ? SYSTEM_STATE_DIR : resolveHome(env);
  const config = await loadOrReport(home, a.config, env, io);
  if (!config) return EXIT.CONFIG;
  const spec = await unitSpec(scope, home, a, config.gateway.drain_timeout_s, env);
  if (!spec.entry.endsWith(".js"))
    io.err(
      `note: ${spec.entry} is not the built entry (a loader runs it here); plain node in the unit needs it: npm run build, then run dist/gateway/cli.js service install`,
    );
  const plan: InstallPlan = {
    spec,
    unit: renderUnit(spec),
    path: unitPath(scope, env),
    account: scope === "user" ? (env.USER ?? userInfo().username) : (spec.user ?? "hermes"),
  };
  if (a["dry-run"]) return installUnit(plan, env, io, { dryRun: true });
  const problem = await managerProblem(scope, env);
  if (problem) {
    io.out(plan.unit);
    io.err(
      `${problem}.\nNothing was installed. Above is the unit this would write to ${plan.path}; any supervisor works if it restarts on exit 75 and not on 78.`,
    );
    return EXIT.FAILURE;
  }
  if (scope === "system" && process.getuid?.() !== 0) {
    io.err(`a system unit needs root: sudo ${spec.node} ${spec.entry} service install --system`);
    return EXIT.FAILURE;
  }
  return installUnit(plan, env, io, { dryRun: false });
}

async function unitSpec(scope: "user" | "system", home: string, a: ServiceArgs, drainTimeoutS: number, env: Env): Promise<UnitSpec> {
  const node = await realpathOr(process.execPath);
  // The entry this command was started with; through npm's bin link, the file it points to (stable across upgrades).
  const entry = await realpathOr(resolve(process.argv[1] ?? ""));
  const path = [...new Set([dirname(node), ...(env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(":").filter(Boolean)])].join(":");
  return {
    scope,
    node,
    entry,
    home,
    drainTimeoutS,
    path,
    ...(a.config ? { configPath: resolve(a.config) } : {}),
    ...(scope === "system" ? { user: a.user ?? "hermes" } : {}),
  };
}

async function realpathOr(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

async function installedScope(a: ServiceArgs, env: Env): Promise<"user" | "system" | null> {
  const scopes = a.system ? (["system"] as const) : (["user", "system"] as const);
  for (const scope of scopes) {
    if (
      await access(unitPath(scope, env)).then(
        () => true,
        () => false,
      )
    )
      return scope;
  }
  return null;
}

async function onInstalled(sub: "uninstall" | "restart" | "logs", a: ServiceArgs, env: Env, io: CliIo): Promise<number> {
  const scope = await installedScope(a, env);
  if (!scope) {
    const where = a.system ? unitPath("system", env) : `${unitPath("user", env)} or ${unitPath("system", env)}`;
    if (sub === "uninstall") {
      io.out(`no hermes-gateway unit is installed (${where}): nothing to remove`);
      return EXIT.OK;
    }
    io.err(
      `no hermes-gateway unit is installed (${where}): hermes-gateway service install${sub === "restart" ? "; a daemon started by hand restarts with kill -USR1 <pid> (it exits 75 for its supervisor)" : ""}`,
    );
    return EXIT.FAILURE;
  }
  if (sub === "logs") {
    const argv = ["journalctl", ...(scope === "user" ? ["--user"] : []), "-u", UNIT_NAME, ...(a.follow ? ["-n", "50", "-f"] : ["-n", "200", "--no-pager"])];
    const code = await execAttached(argv, env);
    if (code === 127) io.err("journalctl is not installed here");
    return code;
  }
  const steps = sub === "restart" ? [systemctl(scope, "reload-or-restart", UNIT_NAME)] : [systemctl(scope, "disable", "--now", UNIT_NAME)];
  for (const argv of steps) {
    const r = await exec(argv, env);
    if (r.code !== 0) {
      io.err(`✗ ${argv.join(" ")}: ${(r.stderr || r.stdout).trim()}`);
      return EXIT.FAILURE;
    }
    io.out(`✓ ${argv.join(" ")}`);
  }
  if (sub === "restart") {
    io.out("the daemon drains (up to gateway.drain_timeout_s), exits 75 and is started again; follow it with: hermes-gateway service logs -f");
    return EXIT.OK;
  }
  return removeUnit(scope, unitPath(scope, env), env, io);
}
