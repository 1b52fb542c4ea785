/**
 * Where the fake stdio MCP servers (test/fakes/mcp/<name>-server.ts) are to be run from: the global setup bundles
 * each into one file that plain node runs (test/global-setup.ts), and hands its folder to the tests.
 */
import { join } from "node:path";
import { inject } from "vitest";

export type FakeName = "normal" | "changing" | "hang" | "crash" | "flood" | "stubborn" | "garbage" | "foreign-schema";

/** The bundled fake `name`: `node <this path>` runs the server. */
export function fakePath(name: FakeName): string {
  return join(inject("mcpFakes"), `${name}-server.mjs`);
}
