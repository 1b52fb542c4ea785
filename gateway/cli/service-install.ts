/**
 * The steps of `service install` and `service uninstall`, in order, each
 * printed as it runs. Installing is idempotent: an unchanged unit is left
 * alone, a changed one is rewritten and the running service restarted with a
 * drain so that it takes effect.
 */
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { readPidFile } from "../pid-file.js";
import type { CliIo } from "./context.js";
import { EXIT } from "./exit-codes.js";
import { type Env, exec, systemctl } from "./service-systemd.js";
import { SYSTEM_STATE_DIR, UNIT_NAME, type UnitSpec } from "./service-unit.js";

export interface InstallPlan {
  readonly spec: UnitSpec;
  readonly unit: string;
  /** Where the unit file goes. */
  readonly path: string;
  /** User units: the login whose lingering keeps the service up; system units: the service's account. */
  readonly account: string;
}

export async function installUnit(plan: InstallPlan, env: Env, io: CliIo, opts: { readonly dryRun: boolean }): Promise<number> {
  const { scope, home } = plan.spec;
  const current = await readFile(plan.path, "utf8").catch(() => null);
  const changed = current !== plan.unit;
  if (opts.dryRun) {
    io.out(plan.unit);
    io.err(dryRunNotes(plan, current === null ? "a new file" : changed ? "it changes" : "unchanged"));
    return EXIT.OK;
  }
  const run = (argv: readonly string[]) => step(argv, env, io);
  if (scope === "system") {
    if (!(await ensureAccount(plan.account, home, env, io))) return EXIT.FAILURE;
    if (home !== SYSTEM_STATE_DIR && !(await run(["install", "-d", "-m", "0700", "-o", plan.account, "-g", plan.account, home]))) return EXIT.FAILURE;
  }
  const wasActive = (await exec(systemctl(scope, "is-active", UNIT_NAME), env)).stdout.trim() === "active";
  const holder = wasActive ? null : await readPidFile(home);
  if (holder?.kind === "pid" && holder.alive) {
    io.err(
      `a daemon already runs for ${home} (pid ${holder.pid}), not under this unit: stop it first (two cannot share a HERMES_HOME, and the unit's would be refused and restarted every 5 s)`,
    );
    return EXIT.FAILURE;
  }
  if (changed) {
    await writeAtomically(plan.path, plan.unit);
    io.out(`✓ wrote ${plan.path}`);
    if (!(await run(systemctl(scope, "daemon-reload")))) return EXIT.FAILURE;
  } else {
    io.out(`✓ ${plan.path} is up to date`);
  }
  if (!(await run(systemctl(scope, "enable", "--now", UNIT_NAME)))) return EXIT.FAILURE;
  // A running service keeps its old command line until it restarts: restart it now, with a drain.
  if (changed && wasActive && !(await run(systemctl(scope, "reload-or-restart", UNIT_NAME)))) return EXIT.FAILURE;
  if (scope === "user") await linger(plan.account, env, io);
  io.out(
    `hermes-gateway runs under systemd${scope === "user" ? " (user unit)" : ` as ${plan.account}`}, HERMES_HOME ${home}. See it with: hermes-gateway status, hermes-gateway service logs -f`,
  );
  return EXIT.OK;
}

export async function removeUnit(scope: "user" | "system", path: string, env: Env, io: CliIo): Promise<number> {
  await rm(path, { force: true });
  io.out(`✓ removed ${path}`);
  if (!(await step(systemctl(scope, "daemon-reload"), env, io))) return EXIT.FAILURE;
  io.out("HERMES_HOME (configuration, sessions, memories) is left as it was.");
  return EXIT.OK;
}

/** Runs one command and says how it went; false when it failed. */
async function step(argv: readonly string[], env: Env, io: CliIo): Promise<boolean> {
  const r = await exec(argv, env);
  if (r.code === 0) {
    io.out(`✓ ${argv.join(" ")}`);
    return true;
  }
  io.err(`✗ ${argv.join(" ")} (exit ${r.code}): ${(r.stderr || r.stdout).trim()}`);
  return false;
}

/** The system unit's account, created (a system account with its own group and no login) when missing. */
async function ensureAccount(name: string, home: string, env: Env, io: CliIo): Promise<boolean> {
  if ((await exec(["id", "-u", name], env)).code === 0) {
    io.out(`✓ account ${name} exists`);
    return true;
  }
  return step(["useradd", "--system", "--user-group", "--home-dir", home, "--no-create-home", "--shell", "/usr/sbin/nologin", name], env, io);
}

/**
 * A user's services stop when their last session ends unless logind keeps the
 * user manager running ("lingering"). Turning it on for oneself is usually
 * allowed; where it is not, say what to run.
 */
async function linger(account: string, env: Env, io: CliIo): Promise<void> {
  const state = await exec(["loginctl", "show-user", account, "--property=Linger", "--value"], env);
  if (state.code === 0 && state.stdout.trim() === "yes") {
    io.out(`✓ lingering is on for ${account}: the service keeps running after logout`);
    return;
  }
  const r = await exec(["loginctl", "enable-linger", account], env);
  if (r.code === 0) io.out(`✓ loginctl enable-linger ${account}: the service keeps running after logout`);
  else io.err(`! the service stops when ${account} logs out until lingering is on: sudo loginctl enable-linger ${account}`);
}

function dryRunNotes(plan: InstallPlan, state: string): string {
  const { scope, home } = plan.spec;
  const lines = [
    `# dry run: nothing was changed. install would write the unit above to ${plan.path} (${state}),`,
    ...(scope === "system" ? [`#   create the account ${plan.account} if it is missing (useradd --system --user-group)`] : []),
    ...(scope === "system" && home !== SYSTEM_STATE_DIR ? [`#   create ${home} owned by ${plan.account} (install -d -m 0700)`] : []),
    `#   run ${systemctl(scope, "daemon-reload").join(" ")} and ${systemctl(scope, "enable", "--now", UNIT_NAME).join(" ")}`,
    `#   and, if the service runs and the unit changed, ${systemctl(scope, "reload-or-restart", UNIT_NAME).join(" ")}`,
    ...(scope === "user" ? [`#   turn on lingering for ${plan.account} (loginctl enable-linger) if it is off`] : []),
  ];
  return lines.join("\n");
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: 0o644 });
  await rename(tmp, path);
}
