/**
 * skill_manage: create, edit (full text or exact search-and-replace), delete
 * skills, and write or remove their supporting files. Only under
 * HERMES_HOME/skills; external skill dirs are read-only. The front matter is
 * validated on every write of SKILL.md, before anything reaches the disk.
 */
import { chmod, readFile, rm, rmdir, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { createTwoFilesPatch } from "diff";
import type { ArgsOf, ToolDefinition } from "../../agent/types.js";
import { HermesError } from "../../config/errors.js";
import { defineTool } from "../common/define-tool.js";
import { writeFileAtomic } from "../files/atomic-write.js";
import { withFileLock } from "../files/file-lock.js";
import { occurrences } from "../files/patch.js";
import { aborted, capText, describeFsError, errnoCode, fail, ok } from "../files/shared.js";
import { DEFAULT_CATEGORY, findSkill, homeSkillsDir, loadCatalog, SKILL_FILE, type SkillsConfig } from "./catalog.js";
import { parseSkillMarkdown, SLUG } from "./front-matter.js";
import { isWithin, resolveSupportFile, staysInside } from "./safe-path.js";

const MAX_SKILL_CHARS = 100_000;
const MAX_SUPPORT_BYTES = 1024 * 1024;

const PARAMETERS = {
  type: "object",
  properties: {
    action: { type: "string", enum: ["create", "edit", "delete", "write_file", "remove_file"], description: "What to do." },
    name: { type: "string", minLength: 1, description: "The skill's name (kebab-case slug)." },
    category: { type: "string", minLength: 1, description: `create: the category folder (kebab-case, default "${DEFAULT_CATEGORY}").` },
    content: { type: "string", description: "create, or edit with the full text: the complete SKILL.md, front matter included." },
    old_string: { type: "string", minLength: 1, description: "edit by search-and-replace: exact text to find in SKILL.md." },
    new_string: { type: "string", description: "edit by search-and-replace: the replacement text." },
    replace_all: { type: "boolean", default: false, description: "edit by search-and-replace: replace every occurrence." },
    file_path: { type: "string", minLength: 1, description: "write_file/remove_file: path under references/, scripts/, templates/ or assets/." },
    file_content: { type: "string", description: "write_file: the file's complete content." },
  },
  required: ["action", "name"],
} as const;
type ManageArgs = ArgsOf<typeof PARAMETERS>;

const DESCRIPTION = [
  "Create and maintain skills: reusable procedures saved as HERMES_HOME/skills/<category>/<name>/SKILL.md plus supporting files.",
  "SKILL.md starts with YAML front matter — required: name (kebab-case, same as `name`), description (when to use it), version (semver, e.g. 1.0.0), author, license;",
  "optional: dependencies, prerequisites {env_vars, commands}, metadata.hermes {tags, related_skills} — then markdown sections such as When to Use, Workflow, Pitfalls.",
  "Actions: create (name, category, content), edit (content = full new SKILL.md, or old_string/new_string for an exact replacement), delete (name),",
  "write_file / remove_file (file_path under references/, scripts/, templates/ or assets/; file_content).",
  "Save a skill after a multi-step task worked and is likely to recur. Skills from external directories are read-only.",
].join("\n");

export function createSkillManageTool(config: SkillsConfig): ToolDefinition<ManageArgs> {
  return defineTool({
    name: "skill_manage",
    toolset: "skills",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    parallelSafe: false,
    maxResultChars: 30_000,
    available: () => config.skills.enabled,
    execute: async (args, ctx, signal) => {
      if (signal.aborted) return aborted();
      try {
        return await manage(trimNames(args), ctx.home, config, signal);
      } catch (err) {
        if (signal.aborted) return aborted();
        if (err instanceof HermesError) return fail(err.message);
        return fail(describeFsError(err, homeSkillsDir(ctx.home)));
      }
    },
  });
}

/** Names and paths are used trimmed (a model sometimes pads them); a blank category is the default one. */
function trimNames(args: ManageArgs): ManageArgs {
  return { ...args, name: args.name.trim(), category: args.category?.trim() || undefined, file_path: args.file_path?.trim() };
}

async function manage(args: ManageArgs, home: string, config: SkillsConfig, signal: AbortSignal): Promise<string> {
  if (args.action === "create") return createSkill(args, home, config, signal);
  const located = await locateWritable(args.name, home, config);
  if ("error" in located) return fail(located.error);
  switch (args.action) {
    case "edit":
      return editSkill(args, located.dir, signal);
    case "delete":
      return deleteSkill(located.dir, home);
    case "write_file":
      return writeSupport(args, located.dir, signal);
    case "remove_file":
      return removeSupport(args, located.dir);
  }
}

/** The folder of a home skill by name — also one whose SKILL.md is currently invalid, so it can be repaired or deleted. */
async function locateWritable(name: string, home: string, config: SkillsConfig): Promise<{ dir: string } | { error: string }> {
  const catalog = await loadCatalog(home, config);
  const skill = findSkill(catalog, name);
  if (skill?.root.readOnly)
    return { error: `"${skill.name}" comes from the read-only directory ${skill.root.dir}; copy it into your home skills with create to change it.` };
  if (skill) return { dir: skill.dir };
  const root = homeSkillsDir(home);
  const broken = catalog.invalid.map((i) => dirname(i.path)).find((d) => isWithin(root, d) && basename(d) === name);
  if (broken) return { dir: broken };
  return {
    error: `No skill named "${name}" in ${root}. Available: ${
      catalog.skills
        .filter((s) => !s.root.readOnly)
        .map((s) => s.name)
        .join(", ") || "none"
    }.`,
  };
}

/** Validate SKILL.md text for the skill `name`; the errors list every problem. */
function validateSkillText(text: string, name: string): string | null {
  if (text.length > MAX_SKILL_CHARS) return `SKILL.md is ${text.length} characters; keep it under ${MAX_SKILL_CHARS} and move detail into references/.`;
  const p = parseSkillMarkdown(text);
  if (!p.ok) return `Invalid front matter: ${p.errors.join("; ")}`;
  if (p.skill.meta.name !== name) return `The front matter name "${p.skill.meta.name}" must equal the skill name "${name}" (renaming is delete + create).`;
  return null;
}

async function createSkill(args: ManageArgs, home: string, config: SkillsConfig, signal: AbortSignal): Promise<string> {
  const category = args.category ?? DEFAULT_CATEGORY;
  if (!SLUG.test(args.name)) return fail(`"${args.name}" is not a kebab-case slug (lowercase letters, digits and single dashes, e.g. deploy-nginx).`);
  if (!SLUG.test(category)) return fail(`Category "${category}" is not a kebab-case slug.`);
  if (args.content === undefined) return fail("create needs content: the complete SKILL.md with its front matter.");
  const invalid = validateSkillText(args.content, args.name);
  if (invalid) return fail(invalid);
  const dir = join(homeSkillsDir(home), category, args.name);
  // The lock sits at the skills root: locking inside `dir` would create the folder we test for.
  return withFileLock(
    join(homeSkillsDir(home), `.create-${args.name}`),
    async () => {
      const existing = findSkill(await loadCatalog(home, config), args.name);
      if (existing) return fail(`A skill named "${args.name}" already exists (${existing.dir}); use edit to change it.`);
      if (await exists(dir)) return fail(`${dir} already exists; delete the skill first or pick another name.`);
      await writeFileAtomic(join(dir, SKILL_FILE), args.content!, signal);
      return ok({ created: args.name, category, path: join(dir, SKILL_FILE) });
    },
    { signal },
  );
}

async function editSkill(args: ManageArgs, dir: string, signal: AbortSignal): Promise<string> {
  const file = join(dir, SKILL_FILE);
  return withFileLock(
    file,
    async () => {
      const before = await readFile(file, { encoding: "utf8", signal });
      const after = nextSkillText(args, before);
      if (after.error !== undefined) return fail(after.error, after.extra ?? {});
      const invalid = validateSkillText(after.text, basename(dir));
      if (invalid) return fail(`${invalid} Nothing was written.`);
      await writeFileAtomic(file, after.text, signal);
      const diff = createTwoFilesPatch(`a/${SKILL_FILE}`, `b/${SKILL_FILE}`, before, after.text, undefined, undefined, { context: 2 });
      return ok({ edited: args.name, path: file, diff: capText(diff, 20_000) });
    },
    { signal },
  );
}

type NextText = { text: string; error?: undefined; extra?: undefined } | { error: string; extra?: Record<string, unknown>; text?: undefined };

function nextSkillText(args: ManageArgs, before: string): NextText {
  if (args.content !== undefined)
    return args.old_string === undefined ? { text: args.content } : { error: "Give either content (full text) or old_string/new_string, not both." };
  if (args.old_string === undefined || args.new_string === undefined)
    return { error: "edit needs content (the full new SKILL.md) or old_string and new_string." };
  const at = occurrences(before, args.old_string);
  if (at.length === 0) return { error: "old_string was not found in SKILL.md; view the skill and copy the exact text." };
  if (at.length > 1 && !args.replace_all)
    return { error: `old_string occurs ${at.length} times in SKILL.md; add context to make it unique or set replace_all.`, extra: { occurrences: at.length } };
  const text = args.replace_all
    ? before.split(args.old_string).join(args.new_string)
    : before.slice(0, at[0]) + args.new_string + before.slice(at[0]! + args.old_string.length);
  return { text };
}

async function deleteSkill(dir: string, home: string): Promise<string> {
  const root = homeSkillsDir(home);
  if (!isWithin(root, dir) || dir === root) return fail(`Refusing to delete ${dir}: it is not a skill folder under ${root}.`);
  await rm(dir, { recursive: true, force: true });
  const parent = dirname(dir);
  if (parent !== root) await removeIfEmpty(parent);
  return ok({ deleted: dir });
}

async function writeSupport(args: ManageArgs, dir: string, signal: AbortSignal): Promise<string> {
  if (!args.file_path || args.file_content === undefined) return fail("write_file needs file_path and file_content.");
  const target = resolveSupportFile(dir, args.file_path);
  if (!target.ok) return fail(target.error);
  if (!(await staysInside(dir, target.path))) return fail(`"${args.file_path}" leads outside the skill folder through a symlink.`);
  const bytes = Buffer.byteLength(args.file_content);
  if (bytes > MAX_SUPPORT_BYTES) return fail(`file_content is ${bytes} bytes; supporting files are limited to ${MAX_SUPPORT_BYTES}.`);
  const r = await writeFileAtomic(target.path, args.file_content, signal);
  // Helper scripts are meant to be run.
  if (r.created && target.rel.startsWith("scripts/")) await chmod(target.path, 0o755);
  return ok({ written: target.rel, path: target.path, bytes_written: r.bytes, created: r.created });
}

async function removeSupport(args: ManageArgs, dir: string): Promise<string> {
  if (!args.file_path) return fail("remove_file needs file_path.");
  const target = resolveSupportFile(dir, args.file_path);
  if (!target.ok) return fail(target.error);
  if (!(await staysInside(dir, target.path))) return fail(`"${args.file_path}" leads outside the skill folder through a symlink.`);
  if (!(await exists(target.path))) return fail(`The skill has no file "${target.rel}".`);
  await rm(target.path);
  return ok({ removed: target.rel });
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return false;
    throw err;
  }
}

async function removeIfEmpty(dir: string): Promise<void> {
  try {
    await rmdir(dir);
  } catch (err) {
    const code = errnoCode(err);
    if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "ENOENT") throw err;
  }
}
