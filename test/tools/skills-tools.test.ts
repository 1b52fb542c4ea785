import { mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkillTools, parseSkillMarkdown, skillsIndex } from "../../tools/skills/index.js";
import { callTool } from "./call-tool.js";
import { makeCtx, never, parse, tempDir } from "./core-tools-context.js";

let home: string;
let external: string;
let cleanups: Array<() => Promise<void>> = [];
beforeEach(async () => {
  const a = await tempDir("hgw-skills-home-");
  const b = await tempDir("hgw-skills-ext-");
  home = a.dir;
  external = b.dir;
  cleanups = [a.cleanup, b.cleanup];
});
afterEach(async () => {
  for (const c of cleanups) await c();
});

function skillText(name: string, extra: Record<string, string> = {}, body = "# Title\n\n## When to Use\nWhen deploying.\n"): string {
  const fields = { name, description: `Use ${name} for things.`, version: "1.0.0", author: "Hermes Agent", license: "MIT", ...extra };
  const yaml = Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");
  return `---\n${yaml}\n---\n${body}`;
}

function tools(externalDirs: string[] = []) {
  const config = { skills: { enabled: true, external_dirs: externalDirs } };
  const [list, view, manage] = createSkillTools(config);
  const ctx = makeCtx({ home, cwd: home });
  const run = (t: typeof list) => async (args: Record<string, unknown>) => parse(await callTool(t, args, ctx, never()));
  return { config, list: run(list), view: run(view), manage: run(manage) };
}

describe("skills CRUD", () => {
  it("creates a skill in <category>/<name>/SKILL.md, lists it and views its body and files", async () => {
    const t = tools();
    const text = skillText("deploy-nginx", { metadata: "\n  hermes:\n    tags: [devops, nginx]\n    related_skills: [docker]" });
    const created = await t.manage({ action: "create", name: "deploy-nginx", category: "devops", content: text });
    expect(created).toMatchObject({ success: true, created: "deploy-nginx", category: "devops" });
    expect(await readFile(join(home, "skills/devops/deploy-nginx/SKILL.md"), "utf8")).toBe(text);

    const listed = await t.list({});
    expect(listed.skills).toEqual([
      { name: "deploy-nginx", category: "devops", description: "Use deploy-nginx for things.", version: "1.0.0", tags: ["devops", "nginx"], source: "home" },
    ]);
    expect((await t.list({ tag: "NGINX" })).count).toBe(1);
    expect((await t.list({ category: "github" })).count).toBe(0);

    await t.manage({ action: "write_file", name: "deploy-nginx", file_path: "references/api.md", file_content: "# API\n" });
    const viewed = await t.view({ name: "devops/deploy-nginx" });
    expect(viewed.content).toBe("# Title\n\n## When to Use\nWhen deploying.\n");
    expect(viewed.front_matter.metadata.hermes.related_skills).toEqual(["docker"]);
    expect(viewed.files).toEqual(["references/api.md"]);
    expect((await t.view({ name: "deploy-nginx", file_path: "references/api.md" })).content).toBe("# API\n");
  });

  it("refuses invalid front matter on create, listing every problem, and writes nothing", async () => {
    const t = tools();
    const bad = `---\nname: Deploy_Nginx\ndescription: x\nversion: 1.0\n---\nbody\n`;
    const r = await t.manage({ action: "create", name: "deploy-nginx", content: bad });
    expect(r.success).toBe(false);
    expect(r.error).toMatch(/name: must be a kebab-case slug/);
    expect(r.error).toMatch(/version: must be a semver string/);
    expect(r.error).toMatch(/author: /);
    expect(r.error).toMatch(/license: /);
    expect(await readdir(home)).toEqual([]);
    expect((await t.manage({ action: "create", name: "x", content: "no front matter" })).error).toMatch(/must start with YAML front matter/);
    expect((await t.manage({ action: "create", name: "other-name", content: skillText("deploy-nginx") })).error).toMatch(/must equal the skill name/);
    expect((await t.manage({ action: "create", name: "Bad Name", content: skillText("bad") })).error).toMatch(/kebab-case slug/);
    expect((await t.list({})).count).toBe(0);
  });

  it("refuses a second skill with the same name", async () => {
    const t = tools();
    await t.manage({ action: "create", name: "a-skill", content: skillText("a-skill") });
    expect((await t.manage({ action: "create", name: "a-skill", category: "other", content: skillText("a-skill") })).error).toMatch(/already exists/);
  });

  it("edits with full content or an exact replacement, validating the result", async () => {
    const t = tools();
    await t.manage({ action: "create", name: "a-skill", content: skillText("a-skill") });
    const file = join(home, "skills/general/a-skill/SKILL.md");
    const patched = await t.manage({ action: "edit", name: "a-skill", old_string: "When deploying.", new_string: "When deploying to staging." });
    expect(patched.success).toBe(true);
    expect(patched.diff).toContain("+When deploying to staging.");
    const broken = await t.manage({ action: "edit", name: "a-skill", old_string: "version: 1.0.0", new_string: "version: one" });
    expect(broken.error).toMatch(/version: must be semver.*Nothing was written/);
    expect(await readFile(file, "utf8")).toContain("version: 1.0.0");
    expect((await t.manage({ action: "edit", name: "a-skill", old_string: "nope", new_string: "x" })).error).toMatch(/not found/);
    const full = await t.manage({ action: "edit", name: "a-skill", content: skillText("a-skill", { version: "1.1.0" }, "# New body\n") });
    expect(full.success).toBe(true);
    expect((await t.view({ name: "a-skill" })).content).toBe("# New body\n");
  });

  it("deletes a skill and its empty category folder", async () => {
    const t = tools();
    await t.manage({ action: "create", name: "gone-soon", category: "tmp", content: skillText("gone-soon") });
    expect((await t.manage({ action: "delete", name: "gone-soon" })).success).toBe(true);
    expect(await readdir(join(home, "skills"))).not.toContain("tmp");
    expect((await t.manage({ action: "delete", name: "gone-soon" })).error).toMatch(/No skill named/);
  });

  it("writes scripts as executables and removes supporting files", async () => {
    const t = tools();
    await t.manage({ action: "create", name: "s", content: skillText("s") });
    const w = await t.manage({ action: "write_file", name: "s", file_path: "scripts/run.sh", file_content: "#!/bin/sh\necho hi\n" });
    expect(w).toMatchObject({ success: true, written: "scripts/run.sh", created: true });
    expect((await stat(join(home, "skills/general/s/scripts/run.sh"))).mode & 0o111).not.toBe(0);
    expect((await t.manage({ action: "remove_file", name: "s", file_path: "scripts/run.sh" })).removed).toBe("scripts/run.sh");
    expect((await t.view({ name: "s" })).files).toEqual([]);
  });

  it("refuses path traversal in writes and views, including through symlinks", async () => {
    const t = tools();
    await t.manage({ action: "create", name: "s", content: skillText("s") });
    for (const file_path of ["../escape.md", "references/../../escape.md", "/etc/passwd", "notes.txt", "secrets/x.md"]) {
      const r = await t.manage({ action: "write_file", name: "s", file_path, file_content: "x" });
      expect(r.success, file_path).toBe(false);
    }
    expect((await t.view({ name: "s", file_path: "../../../../etc/passwd" })).error).toMatch(/may not leave the skill folder/);
    const outside = join(external, "outside");
    await mkdir(outside);
    await writeFile(join(outside, "secret.md"), "SECRET");
    await symlink(outside, join(home, "skills/general/s/references"));
    expect((await t.view({ name: "s", file_path: "references/secret.md" })).error).toMatch(/symlink/);
    expect((await t.manage({ action: "write_file", name: "s", file_path: "references/new.md", file_content: "x" })).error).toMatch(/symlink/);
    expect(await readdir(outside)).toEqual(["secret.md"]);
  });

  it("reads external skill dirs but never writes them", async () => {
    await mkdir(join(external, "github/github-pr"), { recursive: true });
    await writeFile(join(external, "github/github-pr/SKILL.md"), skillText("github-pr"));
    const t = tools([external]);
    expect((await t.list({})).skills).toEqual([expect.objectContaining({ name: "github-pr", category: "github", source: "external (read-only)" })]);
    expect((await t.view({ name: "github-pr" })).read_only).toBe(true);
    for (const args of [
      { action: "edit", content: skillText("github-pr") },
      { action: "delete" },
      { action: "write_file", file_path: "references/x.md", file_content: "x" },
    ]) {
      expect((await t.manage({ name: "github-pr", ...args })).error).toMatch(/read-only/);
    }
    expect(await readdir(join(external, "github/github-pr"))).toEqual(["SKILL.md"]);
  });

  it("reports invalid skills on disk and lets them be repaired", async () => {
    await mkdir(join(home, "skills/misc/broken"), { recursive: true });
    await writeFile(join(home, "skills/misc/broken/SKILL.md"), "---\nname: broken\n---\n");
    const t = tools();
    const listed = await t.list({});
    expect(listed.count).toBe(0);
    expect(listed.invalid[0].path).toBe(join(home, "skills/misc/broken/SKILL.md"));
    expect(listed.invalid[0].errors.join(" ")).toMatch(/description/);
    expect((await t.manage({ action: "edit", name: "broken", content: skillText("broken") })).success).toBe(true);
    expect((await t.list({})).count).toBe(1);
  });
});

describe("skillsIndex", () => {
  it("renders the mandatory framing with skills grouped by category, sorted", async () => {
    const t = tools();
    await t.manage({
      action: "create",
      name: "train-model",
      category: "mlops",
      content: skillText("train-model", { description: "Fine-tune models with standard pipelines." }),
    });
    await t.manage({
      action: "create",
      name: "github-pr",
      category: "github",
      content: skillText("github-pr", { description: "Create and manage GitHub pull requests." }),
    });
    await t.manage({
      action: "create",
      name: "github-issues",
      category: "github",
      content: skillText("github-issues", { description: "Work with GitHub issues." }),
    });
    const text = await skillsIndex(home, t.config);
    expect(text.startsWith("## Skills (mandatory)\nBefore replying, scan the skills below.")).toBe(true);
    expect(text).toContain(
      [
        "<available_skills>",
        "  github:",
        "    - github-issues: Work with GitHub issues.",
        "    - github-pr: Create and manage GitHub pull requests.",
        "  mlops:",
        "    - train-model: Fine-tune models with standard pipelines.",
        "</available_skills>",
        "",
        "Only proceed without loading a skill if genuinely none are relevant to the task.",
      ].join("\n"),
    );
  });

  it("is empty when skills are disabled or none exist", async () => {
    expect(await skillsIndex(home, { skills: { enabled: true, external_dirs: [] } })).toBe("");
    await tools().manage({ action: "create", name: "x", content: skillText("x") });
    expect(await skillsIndex(home, { skills: { enabled: false, external_dirs: [] } })).toBe("");
  });
});

describe("front matter", () => {
  it("keeps unknown keys and optional sections", () => {
    const r = parseSkillMarkdown(
      skillText("x", { "allowed-tools": "[Bash]", dependencies: "[requests]", prerequisites: "\n  env_vars: [LINEAR_API_KEY]\n  commands: [curl]" }),
    );
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.skill.meta["allowed-tools"]).toEqual(["Bash"]);
      expect(r.skill.meta.prerequisites).toEqual({ env_vars: ["LINEAR_API_KEY"], commands: ["curl"] });
    }
  });
});
