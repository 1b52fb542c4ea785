/**
 * The tools a platform's sessions are offered, for a command that describes
 * sessions without running them (`sessions export` lists them in each
 * trajectory). The tool system is built here, like every part, and shut down
 * (its background processes killed) once `use` settles.
 */
import type { ToolSchema } from "../../agent/types.js";
import type { Config } from "../../config/index.js";
import { createToolSystem } from "../tools.js";

export type SchemasFor = (platform: string) => Promise<readonly ToolSchema[]>;

export async function withToolSchemas<T>(config: Config, use: (schemasFor: SchemasFor) => Promise<T>): Promise<T> {
  const tools = createToolSystem(config);
  try {
    return await use(async (platform) => (await tools.toolViewFor(platform)).schemas);
  } finally {
    await tools.shutdown();
  }
}
