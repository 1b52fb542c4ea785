#!/usr/bin/env node
/** Entry point of the `hermes-gateway` command. */
import { main } from "./cli/main.js";

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`hermes-gateway: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
