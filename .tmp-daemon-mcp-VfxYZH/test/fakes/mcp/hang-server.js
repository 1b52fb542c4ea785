process.stdin.on("data", () => void 0);
process.stdin.on("end", () => process.stderr.write("[fake-hang] stdin closed; staying alive\n"));
process.on("SIGTERM", () => process.stderr.write("[fake-hang] SIGTERM ignored\n"));
setInterval(() => void 0, 6e4);
process.stderr.write(`[fake-hang ${process.pid}] started; will never answer
`);
