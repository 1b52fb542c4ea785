/**
 * Rules for commands that destroy or overwrite files, disks and permissions:
 * rm, chmod/chown, dd, mkfs and friends, cp/mv/install/ln, tee, sed -i,
 * perl/ruby -i, find -delete/-exec, xargs, and every output redirection.
 */
import { commandName, unwrapFields, type Cmd } from "./guard-argv.js";
import { deleteTargetClass, inDirectory, isBlockDevice, normalizePath, writeTargetClass, type WriteClass } from "./guard-paths.js";
import { hasLong, keyValue, operands, render, shortLetters, type CommandRule, type RuleContext } from "./guard-rule.js";
import { DANGEROUS, HARDLINE, type Category } from "./guard-types.js";
import type { Field, Invocation } from "./invocation.js";

const rm: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "rm") return;
  const letters = shortLetters(cmd.args);
  const longRecursive = hasLong(cmd.args, "--recursive", 3);
  const recursive = letters.has("r") || letters.has("R") || longRecursive;
  const targets = operands(cmd.args);
  const text = render(cmd);
  let hardline = false;
  for (const t of targets) {
    const cls = deleteTargetClass(inDirectory(t, cmd.inv.cwd), ctx.options);
    if (cls === "root") ctx.report(HARDLINE.rootDelete, text);
    else if (cls === "system") ctx.report(HARDLINE.systemDirDelete, text);
    else if (cls === "home") ctx.report(HARDLINE.homeDelete, text);
    hardline ||= cls !== null;
  }
  if (hardline || (!recursive && ctx.walk.invocations.length === 1 && isVerificationScratch(cmd))) return;
  if (recursive) ctx.report(letters.has("r") || letters.has("R") ? DANGEROUS.recursiveDelete : DANGEROUS.recursiveDeleteLong, text);
  else if (targets.some((t) => normalizePath(t, ctx.options).startsWith("/"))) ctx.report(DANGEROUS.deleteRootPath, text);
};

/**
 * The original exempts removing one of its own verification scratch files
 * (`rm -f /tmp/hermes-verify-x.py`); anything broader — globs, `..`,
 * substitutions, several targets — stays flagged.
 */
function isVerificationScratch(cmd: Cmd): boolean {
  const targets = operands(cmd.args);
  const field = cmd.argFields.find((f) => f.text === targets[0]);
  return targets.length === 1 && field !== undefined && !field.dynamic && /^\/tmp\/hermes-(?:verify|ad-hoc)-[A-Za-z0-9_.-]+$/.test(targets[0] as string) && !(targets[0] as string).includes("..");
}

/** `777`, `o+w`, `a=rwx`…: a mode that lets every user write. */
export function isWorldWritable(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return (Number(mode.at(-1)) & 2) !== 0;
  return mode.split(",").some((clause) => {
    const m = /^([ugoa]*)([-+=])([rwxXst]*)$/.exec(clause);
    return m !== null && m[2] !== "-" && (m[3] ?? "").includes("w") && /[oa]/.test(m[1] ?? "");
  });
}

/** Whether a chmod mode makes files executable (used by the chmod-then-run rule). */
export function addsExecute(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return [...mode.slice(-3)].some((d) => (Number(d) & 1) !== 0);
  return mode.split(",").some((clause) => /^[ugoa]*[+=][rwxXst]*[xX]/.test(clause));
}

function touchesSystem(targets: readonly string[], cmd: Cmd, ctx: RuleContext): boolean {
  return targets.some((t) => {
    const cls = deleteTargetClass(inDirectory(t, cmd.inv.cwd), ctx.options);
    return cls === "root" || cls === "system";
  });
}

const permissions: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "chmod" && cmd.name !== "chown" && cmd.name !== "chgrp") return;
  const letters = shortLetters(cmd.args);
  const longRecursive = hasLong(cmd.args, "--recursive", 5);
  const recursive = letters.has("R") || longRecursive;
  const ops = operands(cmd.args);
  const byReference = cmd.args.some((a) => a.startsWith("--reference"));
  const [first, ...rest] = ops;
  const targets = byReference ? ops : rest;
  const text = render(cmd);
  if (recursive && touchesSystem(targets, cmd, ctx)) {
    ctx.report(HARDLINE.permsRoot, text);
    return;
  }
  if (cmd.name === "chmod" && first !== undefined && !byReference && isWorldWritable(first)) {
    ctx.report(longRecursive && !letters.has("R") ? DANGEROUS.worldWritableLong : DANGEROUS.worldWritable, text);
  }
  if (cmd.name === "chown" && recursive && first !== undefined && /^(?:root|0)(?:[:.]|$)/.test(first)) {
    ctx.report(longRecursive && !letters.has("R") ? DANGEROUS.chownRootLong : DANGEROUS.chownRoot, text);
  }
};

const dd: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "dd") return;
  const out = keyValue(cmd.args, "of");
  if (out !== undefined && isBlockDevice(normalizePath(out, ctx.options))) ctx.report(HARDLINE.ddBlock, render(cmd));
  else if (keyValue(cmd.args, "if") !== undefined) ctx.report(DANGEROUS.diskCopy, render(cmd));
};

const FORMATTERS = /^(?:mke2fs|mkdosfs|mkntfs|mkexfatfs|mkswap|newfs(?:_\w+)?)$/;

const formatters: CommandRule = (cmd, ctx) => {
  const text = render(cmd);
  const onDevice = cmd.args.some((a) => a.startsWith("/dev/"));
  if (/^mkfs(?:\.[a-z0-9]+)?$/.test(cmd.name)) ctx.report(HARDLINE.mkfs, text);
  else if (FORMATTERS.test(cmd.name)) ctx.report(onDevice ? HARDLINE.mkfs : DANGEROUS.format, text);
  else if (/^(?:wipefs|blkdiscard|sgdisk|shred|badblocks)$/.test(cmd.name) && cmd.args.some((a) => isBlockDevice(a))) ctx.report(HARDLINE.writeBlock, text);
  else if (cmd.name === "diskutil" && /^(?:erase\w*|zerodisk|randomdisk|securerase|partitiondisk|reformat)$/i.test(cmd.args[0] ?? "")) ctx.report(DANGEROUS.format, text);
  else if (cmd.name === "format" && cmd.args.some((a) => /^[a-z]:$/i.test(a))) ctx.report(DANGEROUS.format, text);
};

/** Where cp/mv/install/ln write: `-t DIR` or the last operand. */
function copyDestination(cmd: Cmd): string | null {
  const spec = cmd.name === "install" ? { short: "mogSt", long: ["--mode", "--owner", "--group", "--suffix", "--target-directory"] } : { short: "St", long: ["--suffix", "--target-directory"] };
  const dirIndex = cmd.args.findIndex((a) => a === "-t" || a === "--target-directory");
  if (dirIndex >= 0) return `${cmd.args[dirIndex + 1] ?? ""}/x`;
  const attached = cmd.args.find((a) => a.startsWith("--target-directory=") || /^-t./.test(a));
  if (attached) return `${attached.replace(/^--target-directory=|^-t/, "")}/x`;
  const ops = operands(cmd.args, spec);
  return ops.length >= 2 ? (ops.at(-1) as string) : null;
}

const copies: CommandRule = (cmd, ctx) => {
  if (!["cp", "mv", "install", "ln", "rsync"].includes(cmd.name)) return;
  const dest = copyDestination(cmd);
  if (dest === null) return;
  const cls = writeTargetClass(dest.endsWith("/") ? `${dest}x` : dest, ctx.options);
  const category = writeCategory(cls, { block: HARDLINE.writeBlock, system: DANGEROUS.copySystem, sensitive: DANGEROUS.copySensitive, project: DANGEROUS.copyProject });
  if (category) ctx.report(category, render(cmd));
};

interface WriteCategories {
  readonly block: Category;
  readonly system: Category;
  readonly sensitive: Category;
  readonly project: Category;
}

function writeCategory(cls: WriteClass, c: WriteCategories): Category | null {
  if (cls === "block") return c.block;
  if (cls === "system-config" || cls === "system-file") return c.system;
  if (cls === "sensitive" || cls === "hermes") return c.sensitive;
  if (cls === "project-config") return c.project;
  return null;
}

const tee: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "tee") return;
  for (const file of operands(cmd.args)) {
    const category = writeCategory(writeTargetClass(file, ctx.options), { block: HARDLINE.writeBlock, system: DANGEROUS.teeSystem, sensitive: DANGEROUS.teeSystem, project: DANGEROUS.teeProject });
    if (category) ctx.report(category, render(cmd));
  }
};

const EDIT_CATEGORIES = {
  sed: { system: DANGEROUS.editSystem, sensitive: DANGEROUS.editSensitive, hermes: DANGEROUS.editHermes },
  long: { system: DANGEROUS.editSystemLong, sensitive: DANGEROUS.editSensitiveLong, hermes: DANGEROUS.editHermesLong },
  perl: { system: DANGEROUS.editSystem, sensitive: DANGEROUS.editSensitivePerl, hermes: DANGEROUS.editHermesPerl },
} as const;

function reportEdits(files: readonly string[], kind: keyof typeof EDIT_CATEGORIES, cmd: Cmd, ctx: RuleContext): void {
  for (const f of files) {
    const cls = writeTargetClass(f, ctx.options);
    const set = EDIT_CATEGORIES[kind];
    const category = cls === "system-config" ? set.system : cls === "sensitive" ? set.sensitive : cls === "hermes" ? set.hermes : null;
    if (category) ctx.report(category, render(cmd));
  }
}

const inPlaceEdits: CommandRule = (cmd, ctx) => {
  if (cmd.name === "sed" || cmd.name === "gsed") {
    const short = [...cmd.args].some((a) => /^-[A-Za-z]*i/.test(a) && !a.startsWith("--"));
    const long = hasLong(cmd.args, "--in-place", 6);
    if (!short && !long) return;
    // The first operand may be the script; checking it as a path too is harmless and covers `sed -i FILE`.
    reportEdits(operands(cmd.args, { short: "efl", long: ["--expression", "--file", "--line-length"] }), short ? "sed" : "long", cmd, ctx);
    return;
  }
  if (cmd.name !== "ruby" && !/^perl\d*$/.test(cmd.name)) return;
  if (!cmd.args.some((a) => /^-[A-Za-z]*i/.test(a) && !a.startsWith("--"))) return;
  reportEdits(operands(cmd.args, { short: cmd.name === "ruby" ? "eIr" : "eE" }), "perl", cmd, ctx);
};

const DELETE_CLASS_CATEGORY = { root: HARDLINE.rootDelete, system: HARDLINE.systemDirDelete, home: HARDLINE.homeDelete } as const;

const find: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "find") return;
  const fields = cmd.argFields;
  // Starting points come before the first expression word; deleting under `/` or `~` is a wipe.
  const firstExpr = cmd.args.findIndex((a) => a.startsWith("-") || a === "(" || a === "!");
  const starts = cmd.args.slice(0, firstExpr < 0 ? cmd.args.length : firstExpr);
  const wipe = starts.map((s) => deleteTargetClass(inDirectory(s, cmd.inv.cwd), ctx.options)).find((c) => c !== null);
  const deletes = (category: Category) => ctx.report(wipe ? DELETE_CLASS_CATEGORY[wipe] : category, render(cmd));
  for (let i = 0; i < fields.length; i++) {
    const a = (fields[i] as Field).text;
    if (a === "-delete") deletes(DANGEROUS.findDelete);
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(a)) continue;
    let end = i + 1;
    while (end < fields.length && ![";", "+"].includes((fields[end] as Field).text)) end += 1;
    const inner = fields.slice(i + 1, end);
    if (unwrapFields(inner, cmd.inv)?.name === "rm") deletes(DANGEROUS.findExecRm);
    ctx.derived(inner, cmd.inv);
    i = end;
  }
};

const XARGS_SHORT = "aEdILnPs";
const XARGS_LONG = ["--arg-file", "--delimiter", "--eof", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"];

const xargs: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "xargs") return;
  let i = 0;
  while (i < cmd.args.length) {
    const a = cmd.args[i] as string;
    if (a === "--") {
      i += 1;
      break;
    }
    if (!a.startsWith("-") || a === "-") break;
    const valueNext = a.startsWith("--") ? !a.includes("=") && XARGS_LONG.includes(a) : a.length === 2 && XARGS_SHORT.includes(a[1] as string);
    i += valueNext ? 2 : 1;
  }
  const inner = cmd.argFields.slice(i);
  if (inner.length === 0) return;
  if (unwrapFields(inner, cmd.inv)?.name === "rm") ctx.report(DANGEROUS.xargsRm, render(cmd));
  ctx.derived(inner, cmd.inv);
};

export const FS_RULES: readonly CommandRule[] = [rm, permissions, dd, formatters, copies, tee, inPlaceEdits, find, xargs];

const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);

/** Output redirections of one invocation (they apply whatever the command is). */
export function redirectRule(inv: Invocation, ctx: RuleContext): void {
  for (const r of inv.redirs) {
    if (!WRITE_OPS.has(r.op) || !r.target) continue;
    const target = r.target.text;
    if (r.op === ">&" && /^(?:\d+|-)$/.test(target)) continue;
    const cls = writeTargetClass(target, ctx.options);
    const detail = `${r.fd ?? ""}${r.op} ${target}`;
    if (cls === "block") ctx.report(HARDLINE.redirectBlock, detail);
    else if (cls === "system-config") ctx.report(DANGEROUS.systemConfig, detail);
    else if (cls === "system-file" || cls === "sensitive" || cls === "hermes") ctx.report(DANGEROUS.redirectSystem, detail);
    else if (cls === "project-config") ctx.report(DANGEROUS.redirectProject, detail);
  }
}

/** `chmod +x x.sh && ./x.sh`: a script made executable and run at once escapes content review. */
export function chmodExecRule(invocations: readonly Invocation[], ctx: RuleContext): void {
  const targets = new Set<string>();
  for (const inv of invocations) {
    const head = inv.argv[0] ?? "";
    const name = commandName(head);
    if (targets.size > 0 && (head.startsWith("./") || head.startsWith("../") || targets.has(head) || ((name === "sh" || name === "bash") && targets.has(inv.argv[1] ?? "")))) {
      ctx.report(DANGEROUS.chmodExec, inv.argv.join(" "));
      return;
    }
    if (name !== "chmod") continue;
    const [mode, ...files] = operands(inv.argv.slice(1));
    if (mode !== undefined && addsExecute(mode)) for (const f of files) targets.add(f);
  }
}
