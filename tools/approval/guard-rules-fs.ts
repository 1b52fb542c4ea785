/**
 * Rules for commands that overwrite files, disks and permissions:
 * chmod/chown, dd, mkfs and friends, cp/mv/install/ln, tee, sed -i,
 * perl/ruby -i, find -delete/-exec, xargs, and every output redirection.
 */
import { type Cmd, commandName, unwrap, unwrapFields } from "./guard-argv.js";
import { deleteTargetClass, inDirectory, isBlockDevice, normalizePath, writeTargetClass } from "./guard-paths.js";
import { type CommandRule, hasLong, keyValue, operands, type RuleContext, render, shortLetters } from "./guard-rule.js";
import { reportTruncation } from "./guard-rules-delete.js";
import { type Category, DANGEROUS, HARDLINE } from "./guard-types.js";
import { type Writer, writeCategory } from "./guard-writes.js";
import type { Field, Invocation } from "./invocation.js";
import { staticOutput, stdinContent } from "./shell-static.js";

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
  else if (cmd.name === "diskutil" && /^(?:erase\w*|zerodisk|randomdisk|securerase|partitiondisk|reformat)$/i.test(cmd.args[0] ?? ""))
    ctx.report(DANGEROUS.format, text);
  else if (cmd.name === "format" && cmd.args.some((a) => /^[a-z]:$/i.test(a))) ctx.report(DANGEROUS.format, text);
};

/** Where cp/mv/install/ln write: `-t DIR` or the last operand. */
function copyDestination(cmd: Cmd): string | null {
  const spec =
    cmd.name === "install"
      ? { short: "mogSt", long: ["--mode", "--owner", "--group", "--suffix", "--target-directory"] }
      : { short: "St", long: ["--suffix", "--target-directory"] };
  const dirIndex = cmd.args.findIndex((a) => a === "-t" || a === "--target-directory");
  if (dirIndex >= 0) return `${cmd.args[dirIndex + 1] ?? ""}/x`;
  const attached = cmd.args.find((a) => a.startsWith("--target-directory=") || /^-t./.test(a));
  if (attached) return `${attached.replace(/^--target-directory=|^-t/, "")}/x`;
  const ops = operands(cmd.args, spec);
  return ops.length >= 2 ? (ops.at(-1) as string) : null;
}

/** Link targets a symlink would let later writes reach (`ln -s ~/.bashrc notes.txt`, then `>> notes.txt`). */
const LINKABLE = new Set(["sensitive", "hermes", "scheduler", "vcs", "system-config"]);

const copies: CommandRule = (cmd, ctx) => {
  if (!["cp", "mv", "install", "ln", "rsync"].includes(cmd.name)) return;
  const dest = copyDestination(cmd);
  if (dest === null) return;
  const category = writeCategory(writeTargetClass(inDirectory(dest.endsWith("/") ? `${dest}x` : dest, cmd.inv.cwd), ctx.options), "copy");
  if (category) ctx.report(category, render(cmd));
  ctx.wrote(dest, cmd.inv.cwd, null);
  if (cmd.name !== "ln") return;
  for (const source of operands(cmd.args, { short: "St", long: ["--suffix", "--target-directory"] }).slice(0, -1)) {
    const cls = writeTargetClass(source, ctx.options);
    const linked = LINKABLE.has(cls ?? "") ? writeCategory(cls, "copy") : null;
    if (linked) ctx.report(linked, render(cmd));
  }
};

const tee: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "tee") return;
  for (const file of operands(cmd.args)) {
    const category = writeCategory(writeTargetClass(inDirectory(file, cmd.inv.cwd), ctx.options), "tee");
    if (category) ctx.report(category, render(cmd));
    ctx.wrote(file, cmd.inv.cwd, cmd.args.includes("-a") || cmd.args.includes("--append") ? null : stdinContent(cmd.inv));
  }
};

function reportEdits(files: readonly string[], writer: Writer, cmd: Cmd, ctx: RuleContext): void {
  for (const f of files) {
    const category = writeCategory(writeTargetClass(inDirectory(f, cmd.inv.cwd), ctx.options), writer);
    if (category) ctx.report(category, render(cmd));
  }
}

const inPlaceEdits: CommandRule = (cmd, ctx) => {
  if (cmd.name === "sed" || cmd.name === "gsed") {
    const short = [...cmd.args].some((a) => /^-[A-Za-z]*i/.test(a) && !a.startsWith("--"));
    const long = hasLong(cmd.args, "--in-place", 6);
    if (!short && !long) return;
    // The first operand may be the script; checking it as a path too is harmless and covers `sed -i FILE`.
    reportEdits(operands(cmd.args, { short: "efl", long: ["--expression", "--file", "--line-length"] }), short ? "edit" : "edit-long", cmd, ctx);
    return;
  }
  if (cmd.name !== "ruby" && !/^perl\d*$/.test(cmd.name)) return;
  if (!cmd.args.some((a) => /^-[A-Za-z]*i/.test(a) && !a.startsWith("--"))) return;
  reportEdits(operands(cmd.args, { short: cmd.name === "ruby" ? "eIr" : "eE" }), "edit-perl", cmd, ctx);
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

export const FS_RULES: readonly CommandRule[] = [permissions, dd, formatters, copies, tee, inPlaceEdits, find, xargs];

const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);
/** Operators that empty the file before writing. */
const TRUNCATING = new Set([">", ">|", "&>", ">&"]);

/** Output redirections of one invocation (they apply whatever the command is). */
export function redirectRule(inv: Invocation, ctx: RuleContext): void {
  for (const r of inv.redirs) {
    if (!WRITE_OPS.has(r.op) || !r.target) continue;
    const target = r.target.text;
    if (r.op === ">&" && /^(?:\d+|-)$/.test(target)) continue;
    const detail = `${r.fd ?? ""}${r.op} ${target}`;
    const category = writeCategory(writeTargetClass(inDirectory(target, inv.cwd), ctx.options), "redirect");
    if (category) ctx.report(category, detail);
    else if (TRUNCATING.has(r.op) && writesNothing(inv)) reportTruncation(target, inv.cwd, "redirect", detail, ctx);
    if (r.op !== "<>") ctx.wrote(target, inv.cwd, writtenText(inv));
  }
}

/** What a simple producer writes to its redirection (`echo …`, `printf …`, `cat <<EOF`), when known. */
function writtenText(inv: Invocation): string | null {
  if (inv.group || inv.argv.length === 0) return inv.group ? null : "";
  return staticOutput([[{ ...inv, redirs: inv.redirs.filter((r) => r.op === "<<" || r.op === "<<-" || r.op === "<<<") }]]);
}

/**
 * Whether the command writes nothing (or only blank space) to its output:
 * `> f`, `: > f`, `true > f`, `echo > f`, `printf '' > f`, `cat /dev/null > f`.
 */
function writesNothing(inv: Invocation): boolean {
  if (inv.group) return false;
  if (inv.argv.length === 0) return true;
  const cmd = unwrap(inv);
  if (cmd === null || cmd.name === "" || [":", "true", "false"].includes(cmd.name)) return true;
  if (cmd.name === "cat" && cmd.args.length > 0 && cmd.args.every((a) => a === "/dev/null")) return true;
  if (cmd.name !== "echo" && cmd.name !== "printf") return false;
  const output = staticOutput([[{ ...inv, redirs: [] }]]);
  return output !== null && output.trim() === "";
}

/** `chmod +x x.sh && ./x.sh`: a script made executable and run at once escapes content review. */
export function chmodExecRule(invocations: readonly Invocation[], ctx: RuleContext): void {
  const targets = new Set<string>();
  for (const inv of invocations) {
    const head = inv.argv[0] ?? "";
    const name = commandName(head);
    if (
      targets.size > 0 &&
      (head.startsWith("./") || head.startsWith("../") || targets.has(head) || ((name === "sh" || name === "bash") && targets.has(inv.argv[1] ?? "")))
    ) {
      ctx.report(DANGEROUS.chmodExec, inv.argv.join(" "));
      return;
    }
    if (name !== "chmod") continue;
    const [mode, ...files] = operands(inv.argv.slice(1));
    if (mode !== undefined && addsExecute(mode)) for (const f of files) targets.add(f);
  }
}
