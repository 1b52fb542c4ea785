/**
 * Model-facing names for MCP tools: `mcp__<server>__<tool>`, restricted to
 * [A-Za-z0-9_-] and 64 characters (what every provider accepts), and unique
 * across all servers. A name that had to be changed (sanitised, shortened or
 * colliding) gets a short hash of the original pair, so it stays the same
 * across restarts whatever order servers connect in — stable names keep the
 * provider's prompt cache warm.
 */
import { createHash } from "node:crypto";

export const MAX_TOOL_NAME = 64;
const HASH_LEN = 8;

/** Replace every character outside [A-Za-z0-9_-] with "_". */
export function sanitizeNamePart(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The toolset a server's tools belong to. */
export function toolsetFor(server: string): string {
  return `mcp-${sanitizeNamePart(server)}`;
}

function shortHash(text: string, salt: number): string {
  return createHash("sha256").update(`${salt}\u0000${text}`).digest("hex").slice(0, HASH_LEN);
}

/** Allocates and releases names; one instance per manager so uniqueness spans all servers. */
export class ToolNameAllocator {
  private readonly ownerOf = new Map<string, string>();
  private readonly nameOf = new Map<string, string>();

  /** The name for `tool` of `server`; the same pair always gets the same name while it holds it. */
  allocate(server: string, tool: string): string {
    const key = `${server}\u0000${tool}`;
    const held = this.nameOf.get(key);
    if (held) return held;
    const plain = `mcp__${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
    const lossy = plain !== `mcp__${server}__${tool}` || plain.length > MAX_TOOL_NAME;
    let name = plain;
    if (lossy || this.ownerOf.has(plain)) {
      const stem = plain.slice(0, MAX_TOOL_NAME - HASH_LEN - 1);
      for (let salt = 0; ; salt++) {
        name = `${stem}_${shortHash(key, salt)}`;
        if (!this.ownerOf.has(name)) break;
      }
    }
    this.ownerOf.set(name, key);
    this.nameOf.set(key, name);
    return name;
  }

  release(name: string): void {
    const key = this.ownerOf.get(name);
    if (key === undefined) return;
    this.ownerOf.delete(name);
    this.nameOf.delete(key);
  }
}
