/**
 * The file toolset: read_file, write_file, patch, search_files.
 * Factories only; the composition root registers them.
 */
import type { ToolDefinition } from "../../agent/types.js";
import { createPatchTool } from "./patch.js";
import { type ReadFileOptions, createReadFileTool } from "./read-file.js";
import { type SearchFilesOptions, createSearchFilesTool } from "./search-files.js";
import { createWriteFileTool } from "./write-file.js";

export { writeFileAtomic } from "./atomic-write.js";
export { createPatchTool } from "./patch.js";
export { createReadFileTool } from "./read-file.js";
export { createSearchFilesTool } from "./search-files.js";
export { createWriteFileTool } from "./write-file.js";

export interface FileToolsOptions extends ReadFileOptions, SearchFilesOptions {}

export function createFileTools(options: FileToolsOptions = {}): ToolDefinition[] {
  return [createReadFileTool(options), createWriteFileTool(), createPatchTool(), createSearchFilesTool(options)];
}
