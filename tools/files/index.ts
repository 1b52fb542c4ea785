/**
 * The file toolset: read_file, write_file, patch, search_files.
 * Factories only; the composition root registers them. Writes pass the
 * terminal's approval policy; what is read passes the terminal's masking.
 */
import type { ToolDefinition } from "../../agent/types.js";
import type { ApprovalPolicy } from "../approval/policy.js";
import { createPatchTool } from "./patch.js";
import { createReadFileTool, type ReadFileOptions } from "./read-file.js";
import { createSearchFilesTool, type SearchFilesOptions } from "./search-files.js";
import { createWriteFileTool } from "./write-file.js";

export { writeFileAtomic } from "./atomic-write.js";
export { createPatchTool } from "./patch.js";
export { createReadFileTool } from "./read-file.js";
export { createSearchFilesTool } from "./search-files.js";
export { createWriteFileTool } from "./write-file.js";

export interface FileToolsOptions extends ReadFileOptions, SearchFilesOptions {
  /** The approval policy the terminal uses: write_file and patch pass it before every write. */
  readonly policy: ApprovalPolicy;
}

export function createFileTools(options: FileToolsOptions): ToolDefinition[] {
  return [createReadFileTool(options), createWriteFileTool(options), createPatchTool(options), createSearchFilesTool(options)];
}
