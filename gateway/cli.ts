#!/usr/bin/env node
/** Entry point of the `hermes-gateway` command. */
import * as nodeModule from "node:module";

/**
 * V8's on-disk compile cache (Node ≥ 22.8; the Docker image runs Node 24):
 * every later start skips compiling the modules it loads — the command
 * modules, SDKs and adapters, all imported after this line (so nothing but
 * node:module is imported statically here). Measured on
 * Node 24: loading the daemon's modules 260 → 200 ms. Absent on Node 20 (nothing
 * happens); NODE_DISABLE_COMPILE_CACHE=1 turns it off, NODE_COMPILE_CACHE=DIR
 * moves it (default: the OS temp directory).
 */
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const { main } = await import("./cli/main.js");
main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`hermes-gateway: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
