/**
 * Skills: skills_list, skill_view, skill_manage and the system-prompt index.
 * Factories only; the composition root registers the tools.
 */
import type { ToolDefinition } from "../../agent/types.js";
import type { SkillsConfig } from "./catalog.js";
import { createSkillManageTool } from "./skill-manage.js";
import { createSkillsListTool, createSkillViewTool } from "./skills-read.js";

export { homeSkillsDir, loadCatalog, type SkillsConfig } from "./catalog.js";
export { parseSkillMarkdown, type SkillFrontMatter, SkillFrontMatterSchema } from "./front-matter.js";
export { createSkillManageTool } from "./skill-manage.js";
export { skillsIndex } from "./skills-index.js";
export { createSkillsListTool, createSkillViewTool } from "./skills-read.js";

export function createSkillTools(config: SkillsConfig): ToolDefinition[] {
  return [createSkillsListTool(config), createSkillViewTool(config), createSkillManageTool(config)];
}
