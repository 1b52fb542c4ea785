/** Fake stdio "MCP server" that writes text that is not JSON-RPC to stdout and never answers. */
process.stdin.on("data", () => undefined);
let n = 0;
setInterval(() => {
  process.stdout.write(`hello, I am not JSON-RPC (line ${++n})\n`);
}, 20);
