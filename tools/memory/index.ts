/**
 * Persistent memory: the `memory` tool, the frozen system-prompt block, the
 * `<memory-context>` fence and its streaming scrubber.
 */

export { createMemoryContextScrubber, fenceMemoryContext, MEMORY_CONTEXT_CLOSE, MEMORY_CONTEXT_NOTE, MEMORY_CONTEXT_OPEN } from "./context-fence.js";
export { ENTRY_DELIMITER, type MemoryTarget, memoryDir, memoryFile, readMemoryEntries } from "./memory-files.js";
export { createMemoryTool, type MemoryToolOptions } from "./memory-tool.js";
export { MemoryContextScrubber, scrubMemoryContext } from "./scrubber.js";
export { memorySystemBlock } from "./system-block.js";
