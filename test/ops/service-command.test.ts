/**
 * `hermes-gateway service …` against stand-ins for systemctl, loginctl and
 * journalctl first on PATH: real child processes whose argv is recorded.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serviceCommand } from "../../gateway/cli/service.js";
import { DIST_CLI, spawnCli } from "../fakes/daemon-process.js";
import { createFakeSystemd, type FakeSystemd, type FakeSystemdKnobs } from "../fakes/fake-systemd.js";
import { captureIo } from "./helpers.js";

let dir: string;
let fake: FakeSystemd;
let unitFile: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "hermes-service-"));
  fake = await createFakeSystemd(dir);
  unitFile = join(dir, "config", "systemd", "user", "hermes-gateway.service");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function env(knobs: FakeSystemdKnobs = {}, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${fake.bin}:/usr/bin:/bin`,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, "config"),
    HERMES_HOME: join(dir, "home"),
    USER: "ada",
    ...fake.env(knobs),
    ...extra,
  };
}

async function service(args: string[], knobs: FakeSystemdKnobs = {}, extra: Record<string, string> = {}) {
  const io = captureIo();
  const code = await serviceCommand(args, env(knobs, extra), io);
  return { code, out: io.stdout(), err: io.stderr(), calls: await fake.calls() };
}

describe("service install (user unit)", () => {
  it("writes the unit, reloads systemd, enables and starts it, and turns on lingering", async () => {
    const r = await service(["install"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const unit = await readFile(unitFile, "utf8");
    expect(unit).toContain(`Environment="HERMES_HOME=${join(dir, "home")}"`);
    expect(unit).toMatch(/^ExecStart=\/\S+ \/\S+ run$/m);
    expect(r.calls).toEqual([
      "systemctl --user is-system-running",
      "systemctl --user is-active hermes-gateway.service",
      "systemctl --user daemon-reload",
      "systemctl --user enable --now hermes-gateway.service",
      "loginctl show-user ada --property=Linger --value",
      "loginctl enable-linger ada",
    ]);
    expect(r.out).toContain(`✓ wrote ${unitFile}`);
    expect(r.out).toContain("✓ loginctl enable-linger ada");
  });

  it("is idempotent: an unchanged unit is left alone, and a changed one rewritten and applied with a drained restart", async () => {
    await service(["install"]);
    const again = await service(["install"], { active: "active", linger: "yes" });
    expect(again.code).toBe(0);
    expect(again.out).toContain("is up to date");
    expect(again.calls.slice(6)).toEqual([
      "systemctl --user is-system-running",
      "systemctl --user is-active hermes-gateway.service",
      "systemctl --user enable --now hermes-gateway.service",
      "loginctl show-user ada --property=Linger --value",
    ]);

    await mkdir(join(dir, "home"), { recursive: true });
    await writeFile(join(dir, "home", "config.yaml"), "gateway:\n  drain_timeout_s: 120\n");
    const changed = await service(["install"], { active: "active", linger: "yes" });
    expect(changed.code).toBe(0);
    expect(await readFile(unitFile, "utf8")).toMatch(/^TimeoutStopSec=150$/m);
    expect(changed.calls.slice(10)).toEqual([
      "systemctl --user is-system-running",
      "systemctl --user is-active hermes-gateway.service",
      "systemctl --user daemon-reload",
      "systemctl --user enable --now hermes-gateway.service",
      "systemctl --user reload-or-restart hermes-gateway.service",
      "loginctl show-user ada --property=Linger --value",
    ]);
  });

  it("says how to keep the service up after logout when lingering may not be turned on", async () => {
    const r = await service(["install"], { lingerDenied: true });
    expect(r.code).toBe(0);
    expect(r.err).toContain("sudo loginctl enable-linger ada");
  });

  it("refuses where systemd does not run, printing the unit instead and changing nothing", async () => {
    const r = await service(["install"], { state: "offline" });
    expect(r.code).toBe(1);
    expect(r.out).toContain("[Service]");
    expect(r.out).toContain("RestartForceExitStatus=75");
    expect(r.err).toContain("no systemd user manager answers");
    expect(r.err).toContain("Nothing was installed");
    expect(existsSync(unitFile)).toBe(false);
    expect(r.calls).toEqual(["systemctl --user is-system-running"]);
  });

  it("counts a degraded manager (some other unit failed) as running", async () => {
    expect((await service(["install"], { state: "degraded" })).code).toBe(0);
  });

  it("refuses where systemctl is not installed", async () => {
    const bare = await createFakeSystemd(join(dir, "bare"), ["loginctl"]);
    const io = captureIo();
    const code = await serviceCommand(["install"], { ...env(), PATH: bare.bin }, io);
    expect(code).toBe(1);
    expect(io.stderr()).toContain("systemctl is not installed here");
    expect(existsSync(unitFile)).toBe(false);
  });

  it("refuses while a daemon started by hand holds the same HERMES_HOME", async () => {
    await mkdir(join(dir, "home"), { recursive: true });
    await writeFile(join(dir, "home", "gateway.pid"), JSON.stringify({ pid: process.pid, kind: "hermes-gateway" }));
    const r = await service(["install"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`pid ${process.pid}`);
    expect(r.err).toContain("stop it first");
    expect(r.calls).not.toContain("systemctl --user enable --now hermes-gateway.service");
  });

  it("--dry-run prints the unit and the plan, and runs and writes nothing", async () => {
    const r = await service(["install", "--dry-run"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("ExecStart=");
    expect(r.err).toContain(`install would write the unit above to ${unitFile} (a new file)`);
    expect(r.err).toContain("systemctl --user enable --now hermes-gateway.service");
    expect(r.calls).toEqual([]);
    expect(existsSync(unitFile)).toBe(false);
  });

  it("--system --dry-run: a unit for a dedicated account, in /var/lib/hermes-gateway unless HERMES_HOME says otherwise", async () => {
    const io = captureIo();
    const { HERMES_HOME: _, ...noHome } = env();
    expect(await serviceCommand(["install", "--system", "--user", "svc-hermes", "--dry-run"], noHome, io)).toBe(0);
    expect(io.stdout()).toMatch(/^User=svc-hermes$/m);
    expect(io.stdout()).toContain(`Environment="HERMES_HOME=/var/lib/hermes-gateway"`);
    expect(io.stdout()).toMatch(/^StateDirectory=hermes-gateway$/m);
    expect(io.stdout()).toMatch(/^WantedBy=multi-user.target$/m);
    expect(io.stderr()).toContain("/etc/systemd/system/hermes-gateway.service");
    expect(io.stderr()).toContain("create the account svc-hermes");
    expect(io.stderr()).toContain("systemctl daemon-reload");
    expect(await fake.calls()).toEqual([]);
  });

  it("refuses --user without --system, and unknown subcommands, with exit 64", async () => {
    expect((await service(["install", "--user", "bob"])).code).toBe(64);
    expect((await service(["frob"])).code).toBe(64);
    expect((await service([])).code).toBe(64);
  });
});

describe("service uninstall, restart, logs", () => {
  it("restart is a reload: SIGUSR1, a drain, exit 75, started again by systemd", async () => {
    await service(["install"]);
    const r = await service(["restart"]);
    expect(r.code).toBe(0);
    expect(r.calls.at(-1)).toBe("systemctl --user reload-or-restart hermes-gateway.service");
    expect(r.out).toContain("drains");
  });

  it("logs reads the unit's journal; -f follows it", async () => {
    await service(["install"]);
    expect((await service(["logs"])).calls.at(-1)).toBe("journalctl --user -u hermes-gateway.service -n 200 --no-pager");
    expect((await service(["logs", "-f"])).calls.at(-1)).toBe("journalctl --user -u hermes-gateway.service -n 50 -f");
  });

  it("uninstall stops and disables the service, removes the unit and reloads; again, it has nothing to do", async () => {
    await service(["install"]);
    const r = await service(["uninstall"]);
    expect(r.code).toBe(0);
    expect(r.calls.slice(-2)).toEqual(["systemctl --user disable --now hermes-gateway.service", "systemctl --user daemon-reload"]);
    expect(existsSync(unitFile)).toBe(false);
    const again = await service(["uninstall"]);
    expect(again.code).toBe(0);
    expect(again.out).toContain("nothing to remove");
  });

  it("restart and logs without an installed unit say how to install one", async () => {
    const r = await service(["restart"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("hermes-gateway service install");
    expect(r.err).toContain("kill -USR1");
    expect(r.calls).toEqual([]);
  });
});

describe("service install from the command line", () => {
  it("writes the Node binary and the entry it was started with, both absolute, and has --help", async () => {
    const d = spawnCli(["service", "install"], env());
    expect(await d.exited).toBe(0);
    const unit = await readFile(unitFile, "utf8");
    expect(unit).toContain(`ExecStart=${await realpath(process.execPath)} ${await realpath(DIST_CLI)} run`);
    const help = spawnCli(["service", "--help"], env());
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain("Usage: hermes-gateway service install");
  });
});
