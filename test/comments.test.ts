/**
 * Comments explain in place. A rule is stated where the code follows it, and
 * where it comes from an upstream project that project is named ("as Hermes
 * Agent does", "the Discord gateway protocol"); no comment sends the reader to
 * a document that is not in the repository (a section number of some notes, a
 * path beside the checkout), and none narrates how the code came to be.
 *
 * The patterns are assembled from pieces so this file does not match itself.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const FOLDERS = ["config", "agent", "tools", "adapters", "gateway", "test", "bench", "deploy", ".ci"];
const ROOT_FILES = ["Dockerfile", "docker-compose.yml", "package.json", "tsconfig.json", "vitest.config.ts", ".dockerignore"];
/** Generated or recorded output, not written by hand. */
const SKIP_DIRS = new Set(["node_modules", "dist", "results", "fixtures"]);
const SOURCE = /\.(?:[cm]?[jt]s|sh|ya?ml|json|md)$/;

const SECTION = String.fromCharCode(0xa7);
const alt = (...parts: string[]) => parts.join("|");

/** Citations of documents outside the repository, anywhere in a line (comments, test names, messages). */
const CITATION = new RegExp(
  alt(
    ["\\.\\.", "shared(?![\\w/-])"].join("/"),
    ["\\.\\.", "shared", "[\\w./-]*\\.md\\b"].join("/"),
    ["STYLE", "md\\b"].join("\\."),
    ["\\bSTYLE", "pattern"].join(" "),
    ["platform", "protocols"].join("-"),
    ["hermes", "gateway\\.md"].join("-"),
    ["\\bhermes", "gateway reference\\b"].join("-"),
    ["openclaw", "peer"].join("-"),
    // The seed documents named as such; a variable holding random seeds is fine.
    ["\\bthe", "seeds\\b"].join(" "),
    ["\\bseeds", `(?:${SECTION}|\\d{3}|notes)`].join(" "),
    ["\\bseed", "\\d{3}\\b"].join(" "),
    ["deep", "dive"].join("-"),
    ["agent", "loop notes\\b"].join("-"),
    ["\\bdesign", "notes\\b"].join(" "),
    // A section of the seed data model cited by its title.
    ["\\(data", "model,"].join(" "),
    ["\\bTODO", "notes\\b"].join(" "),
    ["\\bthe", "brief\\b"].join(" "),
    ["\\.notes", ""].join("/"),
    // A bare section number points into some document; an RFC named with it is upstream.
    `(?<!RFC \\d+ )${SECTION} ?[0-9A-Z]`,
  ),
  "i",
);

/**
 * Development history, and a seed document cited by name, in comment text only:
 * code may well number its sessions or take a `seed` parameter.
 */
const IN_COMMENTS = new RegExp(
  alt(
    ["\\(seed", ""].join(":"),
    ["\\bsessions?", "(?:[1-9]|[12]\\d|30)\\b"].join(" "),
    ["\\bprevious", "ly\\b"].join(""),
    ["\\buntil", "we\\b"].join(" "),
    ["\\bwe", "fixed\\b"].join(" "),
  ),
  "i",
);

/** The comment text of a line: a `#` line in shell/YAML/Dockerfile syntax, a `//` or block-comment line, or a trailing `// …`. */
function commentText(line: string, hashComments: boolean): string {
  const t = line.trimStart();
  if (hashComments) return t.startsWith("#") ? t : "";
  if (t.startsWith("//") || t.startsWith("/*") || t.startsWith("*")) return t;
  const trailing = /\s\/\/\s(.*)$/.exec(line);
  return trailing?.[1] ?? "";
}

interface Finding {
  readonly where: string;
  readonly text: string;
}

function scan(name: string, text: string): Finding[] {
  const hashComments = !/\.(?:[cm]?[jt]s|json|md)$/.test(name);
  const code = /\.[cm]?[jt]s$/.test(name) || hashComments;
  const out: Finding[] = [];
  text.split("\n").forEach((line, i) => {
    const hit = CITATION.exec(line) ?? (code ? IN_COMMENTS.exec(commentText(line, hashComments)) : null);
    if (hit) out.push({ where: `${name}:${i + 1}`, text: hit[0] });
  });
  return out;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!SKIP_DIRS.has(name)) out.push(...walk(p));
    } else if (SOURCE.test(name) || dir.endsWith(".ci")) out.push(p);
  }
  return out;
}

const files = [...FOLDERS.flatMap((f) => walk(join(ROOT, f))), ...ROOT_FILES.map((f) => join(ROOT, f))];

describe("comments and source text", () => {
  it("covers every source folder", () => {
    const rel = files.map((f) => relative(ROOT, f));
    for (const f of [
      "agent/loop/budget.ts",
      "gateway/cli.ts",
      "bench/run.ts",
      "deploy/docker-build-check.mjs",
      ".ci/run",
      "Dockerfile",
      "test/comments.test.ts",
    ]) {
      expect(rel).toContain(f);
    }
  });

  it("cite no document outside the repository and narrate no history", () => {
    const findings = files.flatMap((f) => scan(relative(ROOT, f), readFileSync(f, "utf8")));
    expect(findings.map((f) => `${f.where}: ${f.text}`)).toEqual([]);
  });

  it("catch the known forms and let the rule itself through", () => {
    const ts = (line: string) => scan("x.ts", line).length > 0;
    const cited = [
      ` * Phase 3 of compression (${["deep", "dive"].join("-")} notes ${SECTION}7.4): the summary request.`,
      ` * Who may use the bot (reference ${SECTION}A.8).`,
      ` * GPT-5 weighs developer above system (${SECTION}12.10).`,
      ` * The dependency direction of ${["..", "shared", ["STYLE", "md"].join(".")].join("/")}.`,
      ` * One conversation, one mailbox (${["STYLE", "pattern 7"].join(" ")}).`,
      ` * earlier could no longer reap its servers (${["platform", "protocols"].join("-")} ${SECTION}6).`,
      ` * Write-lock acquisition (${["seed", ""].join(":")} "BEGIN IMMEDIATE").`,
      ` * (${["seed", "003"].join(" ")}, "Migration History")`,
      ` * messages in the ${"seed" + "s'"} OpenAI-style format`,
      ` * Search (${["design", "notes"].join(" ")} in store.md):`,
      ` * SKILL.md = front matter + body (${["data", "model,"].join(" ")} "Skill File Structure").`,
      `  // ${["Session", "18"].join(" ")} found the stall.`,
      `  x(); // ${["previous", "ly"].join("")} this retried twice`,
    ];
    expect(cited.filter((l) => !ts(l))).toEqual([]);
    const fine = [
      ` * Anthropic prompt caching, as Hermes Agent lays it out.`,
      `import { defineTool } from "${["..", "shared", "define-tool.js"].join("/")}";`,
      `export const ENTRY_DELIMITER = "\\n${SECTION}\\n";`,
      ` * The close frame (RFC 6455 ${SECTION}5.5.1) carries a code.`,
      `function rng(seed: number): Rng {`,
      `  it("keeps session 2 apart from session 1", () => {`,
      ` * Keep responses brief and to the point.`,
    ];
    expect(fine.filter(ts)).toEqual([]);
    expect(scan("Dockerfile", `# ${["deep", "dive"].join("-")} notes`)).toHaveLength(1);
    expect(scan("run", `# ${["session", "12"].join(" ")} made this slower`)).toHaveLength(1);
    expect(scan("run", `echo "${["session", "12"].join(" ")}"`)).toHaveLength(0);
  });
});
