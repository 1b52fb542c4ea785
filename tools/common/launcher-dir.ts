/**
 * The name prefix of an MCP worker's socket directory: the client creates it
 * (launcher-client.ts), and the launcher removes only a directory named so.
 */
export const LAUNCHER_DIR_PREFIX = "hgw-mcp-";
