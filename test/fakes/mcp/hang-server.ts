/**
 * Fake stdio MCP server that never answers initialize. It reads (and drops)
 * stdin so the client's writes never block, ignores stdin EOF and SIGTERM, and
 * only SIGKILL ends it.
 */
process.stdin.on("data", () => undefined);
process.stdin.on("end", () => process.stderr.write("[fake-hang] stdin closed; staying alive\n"));
process.on("SIGTERM", () => process.stderr.write("[fake-hang] SIGTERM ignored\n"));
setInterval(() => undefined, 60_000);
process.stderr.write(`[fake-hang ${process.pid}] started; will never answer\n`);
