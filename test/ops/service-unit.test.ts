/** The systemd unit `service install` writes, read back line by line. */
import { describe, expect, it } from "vitest";
import { renderUnit, SYSTEM_STATE_DIR, stopTimeoutS, type UnitSpec } from "../../gateway/cli/service-unit.js";

const user: UnitSpec = {
  scope: "user",
  node: "/home/ada/.nvm/versions/node/v24.1.0/bin/node",
  entry: "/home/ada/.nvm/versions/node/v24.1.0/lib/node_modules/hermes-gateway/dist/gateway/cli.js",
  home: "/home/ada/.hermes",
  drainTimeoutS: 30,
  path: "/home/ada/.nvm/versions/node/v24.1.0/bin:/usr/bin:/bin",
};

/** The unit's lines as [key, value], in order, comments and section headers left out. */
function settings(unit: string): [string, string][] {
  return unit
    .split("\n")
    .filter((l) => l.includes("=") && !l.startsWith("#"))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]);
}
const values = (unit: string, key: string) =>
  settings(unit)
    .filter(([k]) => k === key)
    .map(([, v]) => v);
const value = (unit: string, key: string) => values(unit, key)[0];

describe("the user unit", () => {
  const unit = renderUnit(user);

  it("starts the absolute Node binary with the absolute entry, independent of the manager's PATH", () => {
    expect(value(unit, "ExecStart")).toBe(`${user.node} ${user.entry} run`);
    expect(unit).not.toContain("/usr/bin/env");
  });

  it("sets HERMES_HOME, the PATH for tools and MCP servers, and two malloc arenas", () => {
    expect(values(unit, "Environment")).toEqual([`"HERMES_HOME=/home/ada/.hermes"`, `"PATH=${user.path}"`, "MALLOC_ARENA_MAX=2"]);
  });

  it("restarts always, on 75 by force and never on 78; reload is SIGUSR1; SIGTERM goes to the daemon alone", () => {
    expect(value(unit, "Restart")).toBe("always");
    expect(value(unit, "RestartForceExitStatus")).toBe("75");
    expect(value(unit, "RestartPreventExitStatus")).toBe("78");
    expect(value(unit, "ExecReload")).toBe("/bin/kill -USR1 $MAINPID");
    expect(value(unit, "KillMode")).toBe("mixed");
    expect(value(unit, "KillSignal")).toBe("SIGTERM");
    expect(value(unit, "StartLimitIntervalSec")).toBe("0");
  });

  it("gives the stop more time than the daemon's own bound (drain + 15 s)", () => {
    expect(Number(value(unit, "TimeoutStopSec"))).toBeGreaterThan(30 + 15);
    const long = renderUnit({ ...user, drainTimeoutS: 300 });
    expect(Number(value(long, "TimeoutStopSec"))).toBeGreaterThan(300 + 15);
    expect(stopTimeoutS(0)).toBeGreaterThanOrEqual(60);
    expect(stopTimeoutS(12.5)).toBe(90);
  });

  it("waits for no network target (a user manager has none) and is wanted by default.target; no account lines", () => {
    expect(unit).not.toContain("network-online");
    expect(value(unit, "WantedBy")).toBe("default.target");
    expect(values(unit, "User")).toEqual([]);
    expect(values(unit, "StateDirectory")).toEqual([]);
  });

  it("passes --config when the service was installed with one", () => {
    expect(value(renderUnit({ ...user, configPath: "/etc/hermes/config.yaml" }), "ExecStart")).toBe(
      `${user.node} ${user.entry} run --config /etc/hermes/config.yaml`,
    );
  });

  it("quotes and escapes what systemd would otherwise split or expand", () => {
    const odd = renderUnit({ ...user, entry: "/opt/my apps/100%/cli.js", home: '/srv/a "b" 50%', path: "/a$b:/c" });
    expect(value(odd, "ExecStart")).toBe(`${user.node} "/opt/my apps/100%%/cli.js" run`);
    expect(values(odd, "Environment")).toContain(`"HERMES_HOME=/srv/a \\"b\\" 50%%"`);
    expect(values(odd, "Environment")).toContain(`"PATH=/a$b:/c"`);
    expect(value(renderUnit({ ...user, entry: "/opt/$HOME/cli.js" }), "ExecStart")).toBe(`${user.node} /opt/$$HOME/cli.js run`);
  });
});

describe("the system unit", () => {
  const system: UnitSpec = {
    ...user,
    scope: "system",
    node: "/usr/bin/node",
    entry: "/usr/lib/node_modules/hermes-gateway/dist/gateway/cli.js",
    home: SYSTEM_STATE_DIR,
    user: "hermes",
  };
  const unit = renderUnit(system);

  it("runs as its dedicated account, in a state directory systemd creates for it", () => {
    expect(value(unit, "User")).toBe("hermes");
    expect(value(unit, "Group")).toBe("hermes");
    expect(value(unit, "StateDirectory")).toBe("hermes-gateway");
    expect(value(unit, "StateDirectoryMode")).toBe("0700");
    expect(values(unit, "Environment")[0]).toBe(`"HERMES_HOME=${SYSTEM_STATE_DIR}"`);
  });

  it("starts after the network is up, at boot", () => {
    expect(value(unit, "After")).toBe("network-online.target");
    expect(value(unit, "Wants")).toBe("network-online.target");
    expect(value(unit, "WantedBy")).toBe("multi-user.target");
  });

  it("has no state directory of its own when HERMES_HOME is elsewhere", () => {
    expect(values(renderUnit({ ...system, home: "/srv/hermes" }), "StateDirectory")).toEqual([]);
  });

  it("keeps the same restart and stop rules as the user unit", () => {
    for (const key of ["ExecStart", "Restart", "RestartForceExitStatus", "RestartPreventExitStatus", "ExecReload", "KillMode", "TimeoutStopSec"]) {
      expect(value(unit, key), key).toBeDefined();
    }
    expect(value(unit, "ExecStart")).toBe(`${system.node} ${system.entry} run`);
  });
});
