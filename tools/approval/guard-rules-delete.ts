/**
 * Rules for commands that destroy file contents: rm, unlink, shred and
 * friends, archivers and rsync told to delete, and truncations (truncate,
 * `> file`, `cp /dev/null file`, `dd of=file`). A delete or truncation of a
 * fixed location — absolute, under `~` (the home directory or HERMES_HOME
 * folded) or on a Windows drive — needs approval; relative paths inside the
 * working directory do not, unless they are recursive or protected.
 */
import type { Cmd } from "./guard-argv.js";
import { deleteTargetClass, inDirectory, isAnchored, normalizePath, writeTargetClass } from "./guard-paths.js";
import { type CommandRule, hasLong, keyValue, operands, type RuleContext, render, shortLetters } from "./guard-rule.js";
import { DANGEROUS, HARDLINE } from "./guard-types.js";
import { type Writer, writeCategory } from "./guard-writes.js";

const WIPE = { root: HARDLINE.rootDelete, system: HARDLINE.systemDirDelete, home: HARDLINE.homeDelete } as const;

/** Reports wiping `/`, a system directory or a home; true when one of the targets is such a wipe. */
function wipes(targets: readonly string[], cmd: Cmd, ctx: RuleContext): boolean {
  let found = false;
  for (const t of targets) {
    const cls = deleteTargetClass(inDirectory(t, cmd.inv.cwd), ctx.options);
    if (cls !== null) ctx.report(WIPE[cls], render(cmd));
    found ||= cls !== null;
  }
  return found;
}

function anchored(target: string, cmd: Cmd, ctx: RuleContext): boolean {
  return isAnchored(normalizePath(inDirectory(target, cmd.inv.cwd), ctx.options));
}

const rm: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "rm") return;
  const letters = shortLetters(cmd.args);
  const longRecursive = hasLong(cmd.args, "--recursive", 3);
  const recursive = letters.has("r") || letters.has("R") || longRecursive;
  const targets = operands(cmd.args);
  if (wipes(targets, cmd, ctx) || (!recursive && ctx.walk.invocations.length === 1 && isVerificationScratch(cmd))) return;
  if (recursive) ctx.report(letters.has("r") || letters.has("R") ? DANGEROUS.recursiveDelete : DANGEROUS.recursiveDeleteLong, render(cmd));
  else if (targets.some((t) => anchored(t, cmd, ctx))) ctx.report(DANGEROUS.deleteRootPath, render(cmd));
};

/**
 * Hermes Agent exempts removing one of its own verification scratch files
 * (`rm -f /tmp/hermes-verify-x.py`); anything broader — globs, `..`,
 * substitutions, several targets — stays flagged.
 */
function isVerificationScratch(cmd: Cmd): boolean {
  const targets = operands(cmd.args);
  const field = cmd.argFields.find((f) => f.text === targets[0]);
  return (
    targets.length === 1 &&
    field !== undefined &&
    !field.dynamic &&
    /^\/tmp\/hermes-(?:verify|ad-hoc)-[A-Za-z0-9_.-]+$/.test(targets[0] as string) &&
    !(targets[0] as string).includes("..")
  );
}

/** `unlink FILE`: rm without options, judged like `rm FILE`. */
const unlink: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "unlink") return;
  const targets = operands(cmd.args);
  if (!wipes(targets, cmd, ctx) && targets.some((t) => anchored(t, cmd, ctx))) ctx.report(DANGEROUS.deleteRootPath, render(cmd));
};

/** Secure-delete tools overwrite contents beyond recovery (with or without `-u`); raw disks are hardline elsewhere. */
const shred: CommandRule = (cmd, ctx) => {
  if (!["shred", "srm", "wipe", "sdelete"].includes(cmd.name)) return;
  const targets = operands(cmd.args, { short: "nsx", long: ["--iterations", "--size", "--random-source", "--remove"] });
  if (targets.length > 0 && !wipes(targets, cmd, ctx)) ctx.report(DANGEROUS.shred, render(cmd));
};

/** tar/zip/7z/rsync options that delete the originals (or, for rsync, whatever the destination has beyond the source). */
const archiveDelete: CommandRule = (cmd, ctx) => {
  const { name, args } = cmd;
  const text = render(cmd);
  if ((name === "tar" || name === "bsdtar" || name === "gtar") && hasLong(args, "--remove-files", 5)) ctx.report(DANGEROUS.archiveDelete, text);
  else if (name === "zip" && (shortLetters(args).has("m") || hasLong(args, "--move", 4))) ctx.report(DANGEROUS.archiveDelete, text);
  else if ((name === "7z" || name === "7za" || name === "7zz") && args.some((a) => /^-sdel$/i.test(a))) ctx.report(DANGEROUS.archiveDelete, text);
  else if (name === "rsync") rsyncDelete(cmd, ctx);
};

function rsyncDelete(cmd: Cmd, ctx: RuleContext): void {
  const removesSource = hasLong(cmd.args, "--remove-source-files", 5);
  const deletesExtra = cmd.args.some((a) => /^--del(?:ete(?:-(?:before|during|delay|after|excluded|missing-args))?)?$/.test(a));
  if (!removesSource && !deletesExtra) return;
  const ops = operands(cmd.args, {
    short: "eBfT",
    long: [
      "--rsh",
      "--filter",
      "--exclude",
      "--include",
      "--exclude-from",
      "--include-from",
      "--files-from",
      "--temp-dir",
      "--backup-dir",
      "--chmod",
      "--rsync-path",
    ],
  });
  // `rsync -a --delete empty/ ~/` empties the destination: a wipe when that is `/`, a system directory or a home.
  if (deletesExtra && ops.length >= 2 && wipes([ops.at(-1) as string], cmd, ctx)) return;
  ctx.report(DANGEROUS.archiveDelete, render(cmd));
}

/** Reports emptying `target`: protected locations by their write category, other fixed locations as a truncation. */
export function reportTruncation(target: string, cwd: string | null, writer: Writer, detail: string, ctx: RuleContext): void {
  const path = inDirectory(target, cwd);
  const category = writeCategory(writeTargetClass(path, ctx.options), writer);
  if (category) ctx.report(category, detail);
  else if (isAnchored(normalizePath(path, ctx.options)) && !/^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/.test(path)) ctx.report(DANGEROUS.truncate, detail);
}

const truncate: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "truncate") return;
  for (const t of operands(cmd.args, { short: "sor", long: ["--size", "--reference"] })) reportTruncation(t, cmd.inv.cwd, "redirect", render(cmd), ctx);
};

/** `cp /dev/null FILE`, `install /dev/null FILE`: copying nothing over a file empties it. */
const copyNothing: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "cp" && cmd.name !== "install") return;
  const ops = operands(cmd.args, { short: "mogSt", long: ["--mode", "--owner", "--group", "--suffix", "--target-directory"] });
  if (ops.length === 2 && ops[0] === "/dev/null") reportTruncation(ops[1] as string, cmd.inv.cwd, "redirect", render(cmd), ctx);
};

/** `dd of=FILE` without `if=` copies stdin (closed: nothing) over the file; with `if=` it is a disk copy, flagged elsewhere. */
const ddOutput: CommandRule = (cmd, ctx) => {
  if (cmd.name !== "dd") return;
  const out = keyValue(cmd.args, "of");
  const input = keyValue(cmd.args, "if");
  if (out === undefined) return;
  const noTruncate = (keyValue(cmd.args, "conv") ?? "").split(",").includes("notrunc");
  if ((input === undefined || input === "/dev/null") && !noTruncate) reportTruncation(out, cmd.inv.cwd, "redirect", render(cmd), ctx);
  else {
    const category = writeCategory(writeTargetClass(inDirectory(out, cmd.inv.cwd), ctx.options), "redirect");
    if (category && category.tier !== "hardline") ctx.report(category, render(cmd));
  }
};

export const DELETE_RULES: readonly CommandRule[] = [rm, unlink, shred, archiveDelete, truncate, copyNothing, ddOutput];
