/**
 * The skills section of the system prompt (prompt layer 7, Hermes Agent's
 * wording): a compact catalogue under a mandatory-load framing. Sorted so the
 * text is stable between sessions (prompt cache).
 */
import type { Config } from "../../config/schema.js";
import { loadCatalog } from "./catalog.js";

const MAX_DESCRIPTION = 200;

const HEADER = [
  "## Skills (mandatory)",
  "Before replying, scan the skills below. If a skill matches or is even partially",
  "relevant to your task, you MUST load it with skill_view(name) and follow its",
  "instructions. Err on the side of loading — it is always better to have context",
  "you don't need than to miss critical steps, pitfalls, or established workflows.",
  "Skills contain specialized knowledge — API endpoints, tool-specific commands,",
  "and proven workflows that outperform general-purpose approaches. Load the skill",
  "even if you think you could handle the task with basic tools like web_search or",
  "terminal. Skills also encode the user's preferred approach, conventions, and",
  "quality standards for tasks like code review, planning, and testing — load them",
  "even for tasks you already know how to do, because the skill defines how it",
  "should be done here.",
].join("\n");

const FOOTER = "Only proceed without loading a skill if genuinely none are relevant to the task.";

/** The index text, or "" when skills are disabled or none are valid. */
export async function skillsIndex(home: string, config: { readonly skills: Config["skills"] }): Promise<string> {
  if (!config.skills.enabled) return "";
  const { skills } = await loadCatalog(home, config);
  if (skills.length === 0) return "";
  const byCategory = new Map<string, string[]>();
  for (const s of [...skills].sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name))) {
    const line = `    - ${s.name}: ${oneLine(s.meta.description)}`;
    byCategory.set(s.category, [...(byCategory.get(s.category) ?? []), line]);
  }
  const body = [...byCategory].map(([category, lines]) => `  ${category}:\n${lines.join("\n")}`).join("\n");
  return `${HEADER}\n\n<available_skills>\n${body}\n</available_skills>\n\n${FOOTER}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_DESCRIPTION ? `${flat.slice(0, MAX_DESCRIPTION - 1)}…` : flat;
}
