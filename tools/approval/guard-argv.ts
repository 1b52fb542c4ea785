/**
 * Finds the command that actually runs behind wrappers such as `sudo`,
 * `env`, `nohup`, `timeout`, `nice`, `exec` or `busybox`, skipping each
 * wrapper's own options the way that wrapper parses them.
 */
import type { Field, Invocation } from "./invocation.js";

export interface Wrapper {
  readonly name: string;
  /** The wrapper's own option words (e.g. sudo's `-u root -S`). */
  readonly options: readonly string[];
}

/** A command as the rules see it. */
export interface Cmd {
  /** Lower-cased basename of argv[0] without `.exe` ("" when there is no command). */
  readonly name: string;
  readonly args: readonly string[];
  readonly head: Field | null;
  readonly argFields: readonly Field[];
  readonly wrappers: readonly Wrapper[];
  readonly inv: Invocation;
}

interface WrapperSpec {
  /** Short options that take a value. */
  readonly short?: string;
  /** Long options that take a value as the next word. */
  readonly long?: readonly string[];
  /** Positional words before the wrapped command (timeout's DURATION, chroot's NEWROOT). */
  readonly positional?: number;
  /** `NAME=value` words may precede the command. */
  readonly assignments?: boolean;
  /** Options after which nothing runs (`command -v`). */
  readonly lookupOnly?: string;
  /** `env -S STRING`: the string is split into the command line. */
  readonly splitString?: boolean;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    short: "CDghpRrTtUu",
    long: ["--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role", "--type", "--command-timeout", "--other-user", "--user"],
    assignments: true,
  },
  doas: { short: "uC" },
  env: { short: "uC", long: ["--unset", "--chdir"], assignments: true, splitString: true },
  nohup: {},
  nice: { short: "n", long: ["--adjustment"] },
  timeout: { short: "ks", long: ["--kill-after", "--signal"], positional: 1 },
  stdbuf: { short: "ioe", long: ["--input", "--output", "--error"] },
  ionice: { short: "cnpPu", long: ["--class", "--classdata", "--pid", "--pgid", "--uid"] },
  chrt: { positional: 1 },
  taskset: { positional: 1 },
  setsid: {},
  exec: { short: "a" },
  command: { lookupOnly: "vV" },
  builtin: {},
  time: { short: "fo", long: ["--format", "--output"] },
  nocorrect: {},
  noglob: {},
  unbuffer: {},
  chronic: {},
  torsocks: {},
  proxychains: { short: "f" },
  proxychains4: { short: "f" },
  caffeinate: { short: "tw" },
  pkexec: { long: ["--user"] },
  busybox: {},
  toybox: {},
  chroot: { long: ["--userspec", "--groups"], positional: 1 },
  "systemd-run": {
    short: "upEHM",
    long: [
      "--unit",
      "--property",
      "--setenv",
      "--host",
      "--machine",
      "--description",
      "--slice",
      "--uid",
      "--gid",
      "--nice",
      "--working-directory",
      "--on-active",
      "--on-calendar",
    ],
  },
  strace: { short: "eoOpPsSuEbaX" },
  ltrace: { short: "eoOpPsSuEaAFlLnx" },
  catchsegv: {},
  "xvfb-run": { short: "nsfepw", long: ["--server-num", "--server-args", "--auth-file", "--error-file"] },
};

const MAX_WRAPPERS = 16;

export function commandName(arg: string | undefined): string {
  const base = (arg ?? "").split(/[\\/]/).pop() ?? "";
  return base.toLowerCase().replace(/\.exe$/, "");
}

/** The effective command of an invocation. Null when a wrapper only looks a name up (`command -v rm`). */
export function unwrap(inv: Invocation): Cmd | null {
  return unwrapFields(inv.fields, inv);
}

export function unwrapFields(start: readonly Field[], inv: Invocation): Cmd | null {
  let fields = start;
  const wrappers: Wrapper[] = [];
  for (let n = 0; n < MAX_WRAPPERS; n++) {
    const name = commandName(fields[0]?.text);
    const spec = WRAPPERS[name];
    if (!spec) break;
    const step = skipWrapper(fields, spec);
    if (step === null) return null;
    wrappers.push({ name, options: fields.slice(1, step.index).map((f) => f.text) });
    fields = [...step.prefix, ...fields.slice(step.index)];
  }
  const head = fields[0] ?? null;
  return { name: commandName(head?.text), args: fields.slice(1).map((f) => f.text), head, argFields: fields.slice(1), wrappers, inv };
}

interface Step {
  readonly index: number;
  /** Words that replace the wrapper (env -S splits its argument into a command line). */
  readonly prefix: readonly Field[];
}

function skipWrapper(fields: readonly Field[], spec: WrapperSpec): Step | null {
  let i = 1;
  let prefix: Field[] = [];
  while (i < fields.length) {
    const f = fields[i] as Field;
    const a = f.text;
    if (a === "--") {
      i += 1;
      break;
    }
    if (/^-\d+$/.test(a)) {
      // nice -10, flock -5: numeric options
      i += 1;
      continue;
    }
    if (!a.startsWith("-") || a === "-") break;
    if (spec.lookupOnly && /^-[a-zA-Z]+$/.test(a) && [...a.slice(1)].some((c) => spec.lookupOnly?.includes(c))) return null;
    const split = spec.splitString ? splitStringOption(fields, i) : null;
    if (split) {
      prefix = splitString(split.value, f);
      i += split.width;
      continue;
    }
    i += optionWidth(a, spec);
  }
  if (spec.assignments) while (i < fields.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test((fields[i] as Field).text)) i += 1;
  i += Math.min(spec.positional ?? 0, Math.max(0, fields.length - i - 1));
  return { index: i, prefix };
}

/** How many words an option occupies (1, or 2 when its value is the next word). */
function optionWidth(a: string, spec: WrapperSpec): number {
  if (a.startsWith("--")) return a.includes("=") || !spec.long?.includes(a) ? 1 : 2;
  const letters = a.slice(1);
  for (let j = 0; j < letters.length; j++) {
    if (spec.short?.includes(letters[j] as string)) return j === letters.length - 1 ? 2 : 1;
  }
  return 1;
}

function splitStringOption(fields: readonly Field[], i: number): { value: string; width: number } | null {
  const a = (fields[i] as Field).text;
  if (a === "-S" || a === "--split-string") return fields[i + 1] ? { value: (fields[i + 1] as Field).text, width: 2 } : null;
  if (a.startsWith("--split-string=")) return { value: a.slice("--split-string=".length), width: 1 };
  if (/^-S./.test(a)) return { value: a.slice(2), width: 1 };
  return null;
}

/** `env -S 'rm -rf /'`: the string becomes words (quotes honoured, as env does). */
function splitString(value: string, from: Field): Field[] {
  const words = value.match(/"[^"]*"|'[^']*'|[^\s]+/g) ?? [];
  return words.map((w) => ({ ...from, text: w.replace(/^(["'])([\s\S]*)\1$/, "$2") }));
}
