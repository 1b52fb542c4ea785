/**
 * SKILL.md = YAML front matter + markdown body, as Hermes Agent lays out a skill
 * file. The schema is validated on every load and every write; unknown keys are
 * kept so skills written for other agents still load.
 */
import { parse as parseYaml } from "yaml";
import * as z from "zod";

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

const nonEmpty = () => z.string().trim().min(1, "must not be empty");
const stringList = () => z.array(nonEmpty());

export const SkillFrontMatterSchema = z.looseObject({
  name: z.string().max(64, "must be at most 64 characters").regex(SLUG, "must be a kebab-case slug such as `github-pr`"),
  description: nonEmpty().max(1024, "must be at most 1024 characters"),
  version: z.string({ error: "must be a semver string such as 1.0.0 (quote it in YAML)" }).regex(SEMVER, "must be semver such as 1.0.0"),
  author: nonEmpty(),
  license: nonEmpty(),
  dependencies: stringList().optional(),
  prerequisites: z.looseObject({ env_vars: stringList().optional(), commands: stringList().optional() }).optional(),
  metadata: z
    .looseObject({
      hermes: z.looseObject({ tags: stringList().optional(), related_skills: stringList().optional() }).optional(),
    })
    .optional(),
});
export type SkillFrontMatter = z.infer<typeof SkillFrontMatterSchema>;

export interface ParsedSkill {
  readonly meta: SkillFrontMatter;
  /** The markdown after the front matter. */
  readonly body: string;
}

export type SkillParse = { readonly ok: true; readonly skill: ParsedSkill } | { readonly ok: false; readonly errors: readonly string[] };

const OPEN = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSE = /\r?\n---[ \t]*(?:\r?\n|$)/;

/** Split and validate a SKILL.md; every problem is listed with its key path. */
export function parseSkillMarkdown(text: string): SkillParse {
  const open = OPEN.exec(text);
  if (!open) return { ok: false, errors: ["SKILL.md must start with YAML front matter: a `---` line, the fields, then another `---` line."] };
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return { ok: false, errors: ["The front matter is not closed: add a `---` line after the fields."] };
  let data: unknown;
  try {
    data = parseYaml(rest.slice(0, close.index));
  } catch (err) {
    return { ok: false, errors: [`The front matter is not valid YAML: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`] };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return { ok: false, errors: ["The front matter must be a YAML mapping of fields (name, description, version, author, license)."] };
  const r = SkillFrontMatterSchema.safeParse(data);
  if (!r.success) return { ok: false, errors: r.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "front matter"}: ${i.message}`) };
  return { ok: true, skill: { meta: r.data, body: rest.slice(close.index + close[0].length).replace(/^\r?\n/, "") } };
}

export function skillTags(meta: SkillFrontMatter): readonly string[] {
  return meta.metadata?.hermes?.tags ?? [];
}
