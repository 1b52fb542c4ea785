/**
 * Runs every bench/*.bench.ts (or those named on the command line) one after
 * another in its own process, so one benchmark's heap and timers can't skew the next.
 * Usage: npm run bench [-- store telegram]
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

const cpu = cpus()[0]?.model ?? "unknown cpu";
process.stdout.write(
  `machine: ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}\n\n`,
);
let failed = 0;
for (const f of files) {
  process.stdout.write(`=== ${f} ===\n`);
  const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", join(dir, f)], { stdio: "inherit" });
  if (r.status !== 0) {
    failed++;
    process.stdout.write(`!!! ${f} exited with ${r.status ?? r.signal}\n`);
  }
  process.stdout.write("\n");
}
process.exitCode = failed ? 1 : 0;
