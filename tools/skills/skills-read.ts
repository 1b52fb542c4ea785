/**
 * skills_list and skill_view: the read side of skills. Both are read-only and
 * parallel-safe.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { ArgsOf, ToolDefinition } from "../../agent/types.js";
import { defineTool } from "../common/define-tool.js";
import { guessMime, looksBinary, SNIFF_BYTES } from "../files/binary.js";
import { aborted, capText, describeFsError, errnoCode, fail, formatBytes, ok } from "../files/shared.js";
import { type Catalog, findSkill, loadCatalog, SKILL_FILE, type SkillsConfig, supportingFiles } from "./catalog.js";
import { parseSkillMarkdown, skillTags } from "./front-matter.js";
import { resolveInside, staysInside } from "./safe-path.js";

const MAX_VIEW_CHARS = 60_000;
const MAX_LIST_DESCRIPTION = 300;

const LIST_PARAMETERS = {
  type: "object",
  properties: {
    category: { type: "string", minLength: 1, description: "Only skills in this category." },
    tag: { type: "string", minLength: 1, description: "Only skills carrying this tag (metadata.hermes.tags)." },
  },
} as const;

const VIEW_PARAMETERS = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, description: "Skill name (or category/name)." },
    file_path: {
      type: "string",
      minLength: 1,
      description: "A supporting file to read instead of SKILL.md, relative to the skill folder, e.g. references/api.md.",
    },
  },
  required: ["name"],
} as const;

/** The skills catalog, or a readable reason it could not be read. */
async function readCatalog(home: string, config: SkillsConfig): Promise<Catalog | string> {
  try {
    return await loadCatalog(home, config);
  } catch (err) {
    return describeFsError(err, home);
  }
}

export function createSkillsListTool(config: SkillsConfig): ToolDefinition<ArgsOf<typeof LIST_PARAMETERS>> {
  return defineTool({
    name: "skills_list",
    toolset: "skills",
    description:
      "List the available skills (reusable procedures with their own instructions and files), optionally by category or tag. Load one with skill_view.",
    parameters: LIST_PARAMETERS,
    parallelSafe: true,
    readOnly: true,
    maxResultChars: 100_000,
    available: () => config.skills.enabled,
    execute: async (args, ctx, signal) => {
      if (signal.aborted) return aborted();
      const catalog = await readCatalog(ctx.home, config);
      if (typeof catalog === "string") return fail(catalog);
      const category = args.category?.trim();
      const tag = args.tag?.trim();
      const chosen = catalog.skills.filter(
        (s) => (!category || s.category === category) && (!tag || skillTags(s.meta).some((t) => t.toLowerCase() === tag.toLowerCase())),
      );
      return ok({
        skills: chosen.map((s) => ({
          name: s.name,
          category: s.category,
          description: capText(s.meta.description, MAX_LIST_DESCRIPTION),
          version: s.meta.version,
          tags: skillTags(s.meta),
          source: s.root.readOnly ? "external (read-only)" : "home",
        })),
        count: chosen.length,
        categories: [...new Set(catalog.skills.map((s) => s.category))].sort(),
        ...(catalog.invalid.length ? { invalid: catalog.invalid } : {}),
        ...(chosen.length === 0 ? { note: catalog.skills.length ? "No skill matches that filter." : "No skills yet. Create one with skill_manage." } : {}),
      });
    },
  });
}

export function createSkillViewTool(config: SkillsConfig): ToolDefinition<ArgsOf<typeof VIEW_PARAMETERS>> {
  return defineTool({
    name: "skill_view",
    toolset: "skills",
    description:
      "Load a skill: its SKILL.md instructions and the list of its supporting files, or one supporting file by relative path (file_path). Follow the instructions of a loaded skill.",
    parameters: VIEW_PARAMETERS,
    parallelSafe: true,
    readOnly: true,
    maxResultChars: 100_000,
    available: () => config.skills.enabled,
    execute: async (args, ctx, signal) => {
      if (signal.aborted) return aborted();
      const catalog = await readCatalog(ctx.home, config);
      if (typeof catalog === "string") return fail(catalog);
      // Names and paths are used trimmed: a model sometimes pads them.
      const name = args.name.trim();
      const filePath = args.file_path?.trim();
      const skill = findSkill(catalog, name);
      if (!skill) return fail(`No skill named "${name}". Available: ${catalog.skills.map((s) => s.name).join(", ") || "none"}.`);
      try {
        if (filePath) return await viewSupportFile(skill.dir, filePath, signal);
        const text = await readFile(join(skill.dir, SKILL_FILE), { encoding: "utf8", signal });
        const p = parseSkillMarkdown(text);
        if (!p.ok) return fail(`${skill.name}'s SKILL.md became invalid: ${p.errors.join("; ")}`);
        return ok({
          name: skill.name,
          category: skill.category,
          path: join(skill.dir, SKILL_FILE),
          front_matter: p.skill.meta,
          content: capText(p.skill.body, MAX_VIEW_CHARS),
          files: await supportingFiles(skill.dir),
          ...(skill.root.readOnly ? { read_only: true } : {}),
        });
      } catch (err) {
        if (signal.aborted) return aborted();
        return fail(describeFsError(err, skill.dir));
      }
    },
  });
}

async function viewSupportFile(dir: string, rel: string, signal: AbortSignal): Promise<string> {
  const inside = resolveInside(dir, rel);
  if (!inside.ok) return fail(inside.error);
  if (!(await staysInside(dir, inside.path))) return fail(`"${rel}" leads outside the skill folder through a symlink.`);
  let size: number;
  try {
    const s = await stat(inside.path);
    if (!s.isFile()) return fail(`"${inside.rel}" is not a file.`);
    size = s.size;
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") throw err;
    return fail(`The skill has no file "${inside.rel}". Its files: ${(await supportingFiles(dir)).join(", ") || "none"}.`);
  }
  const buf = await readFile(inside.path, { signal });
  if (looksBinary(buf.subarray(0, SNIFF_BYTES)))
    return fail(`"${inside.rel}" is a binary file (${guessMime(inside.path, buf)}, ${formatBytes(size)}); only text files can be viewed.`);
  return ok({ file: inside.rel, path: inside.path, content: capText(buf.toString("utf8"), MAX_VIEW_CHARS) });
}
