/**
 * Stand-ins for systemctl, loginctl, journalctl, id and useradd: small shell
 * scripts in a directory the test puts first on PATH, so the service commands
 * run real child processes. Each appends its argv, one line per call, to a log;
 * what they answer is set through environment variables (`knobs`).
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface FakeSystemdKnobs {
  /** What `systemctl is-system-running` prints (exit 0 only for "running"); default running. */
  readonly state?: string;
  /** What `systemctl is-active` prints (exit 0 only for "active"); default inactive. */
  readonly active?: "active" | "inactive";
  /** `loginctl show-user … --property=Linger --value`; default no. */
  readonly linger?: "yes" | "no";
  /** `loginctl enable-linger` is refused (as polkit refuses it without a session). */
  readonly lingerDenied?: boolean;
}

export interface FakeSystemd {
  /** The directory to put first on PATH. */
  readonly bin: string;
  /** The environment the scripts read (log path and knobs). */
  env(knobs?: FakeSystemdKnobs): Record<string, string>;
  /** Every call so far, as "program arg arg …". */
  calls(): Promise<string[]>;
}

const SCRIPTS: Readonly<Record<string, string>> = {
  systemctl: `case " $* " in
  *" is-system-running "*) echo "$FAKE_STATE"; [ "$FAKE_STATE" = running ] ;;
  *" is-active "*) echo "$FAKE_ACTIVE"; [ "$FAKE_ACTIVE" = active ] ;;
  *) exit 0 ;;
esac`,
  loginctl: `case "$1" in
  show-user) echo "$FAKE_LINGER" ;;
  enable-linger) if [ -n "$FAKE_LINGER_DENIED" ]; then echo "Could not enable linger: Access denied" >&2; exit 1; fi ;;
esac`,
  journalctl: `echo "-- journal --"`,
  id: `echo "id: '$2': no such user" >&2; exit 1`,
  useradd: `exit 0`,
};

export async function createFakeSystemd(dir: string, only: readonly string[] = Object.keys(SCRIPTS)): Promise<FakeSystemd> {
  const bin = join(dir, "fake-bin");
  const log = join(dir, "fake-systemd.log");
  await mkdir(bin, { recursive: true });
  await writeFile(log, "");
  for (const name of only) {
    const file = join(bin, name);
    await writeFile(file, `#!/bin/sh\necho "${name} $*" >> "$FAKE_SYSTEMD_LOG"\n${SCRIPTS[name]}\n`);
    await chmod(file, 0o755);
  }
  return {
    bin,
    env: (k = {}) => ({
      FAKE_SYSTEMD_LOG: log,
      FAKE_STATE: k.state ?? "running",
      FAKE_ACTIVE: k.active ?? "inactive",
      FAKE_LINGER: k.linger ?? "no",
      ...(k.lingerDenied ? { FAKE_LINGER_DENIED: "1" } : {}),
    }),
    calls: async () => (await readFile(log, "utf8")).split("\n").filter(Boolean),
  };
}
