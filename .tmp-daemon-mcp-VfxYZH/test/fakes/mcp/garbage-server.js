process.stdin.on("data", () => void 0);
let n = 0;
setInterval(() => {
  process.stdout.write(`hello, I am not JSON-RPC (line ${++n})
`);
}, 20);
