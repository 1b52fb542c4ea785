#!/usr/bin/env node
// The Docker image's build, proven on a machine without Docker (CI runs this). It reads the Dockerfile and does
// what it says, in a temporary directory, from a clean copy of the repository (the files git tracks):
//   build stage:   its COPY lines, its npm commands (npm ci; npm run build && npm prune --omit=dev)
//   runtime stage: its COPY --from=build and COPY lines, its ENV, the file its `ln -s` puts on PATH, then
//                  ENTRYPOINT + CMD started from the pruned tree; /healthz must answer, the HEALTHCHECK command
//                  and `hermes-gateway status` must exit 0, and SIGTERM must end it with exit 0.
// apt-get and the other system steps are not run here (they need the image's root file system): each is listed.
// In the started daemon HERMES_HOME is a temporary directory instead of /data and it listens on 127.0.0.1.
//
//   node deploy/docker-build-check.mjs [--reuse-node-modules] [--keep]
//
// --reuse-node-modules copies this checkout's node_modules instead of running `npm ci` (which compiles
// better-sqlite3, ~90 s): the prune and the start from the pruned tree still happen. --keep leaves the directory.
import { execFileSync, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const reuse = process.argv.includes("--reuse-node-modules");
const keep = process.argv.includes("--keep");
const t0 = performance.now();
const say = (text) => console.log(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${text}`);

/** The Dockerfile as stages of [instruction, argument] pairs (continuation lines joined, comments dropped). */
export function parseDockerfile(text) {
  const stages = [];
  for (const line of text.replace(/\\\n/g, " ").split("\n")) {
    const l = line.trim();
    if (!l || l.startsWith("#")) continue;
    const [, op, arg] = /^(\w+)\s+(.*)$/.exec(l) ?? [];
    if (!op) throw new Error(`cannot read Dockerfile line: ${l}`);
    if (op.toUpperCase() === "FROM") stages.push([]);
    stages.at(-1)?.push([op.toUpperCase(), arg]);
  }
  if (stages.length !== 2) throw new Error(`expected a build stage and a runtime stage, found ${stages.length}`);
  return stages;
}

const jsonOrWords = (arg) => (arg.startsWith("[") ? JSON.parse(arg) : arg.split(/\s+/));
const inApp = (dir, p) => join(dir, p.replace(/^\/app\/?/, "").replace(/^\.\//, ""));

function run(cmd, args, cwd, env = process.env) {
  execFileSync(cmd, args, { cwd, env: { ...env, CI: "true" }, stdio: "inherit" });
}

async function cleanCopy(dest) {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
  let copied = 0;
  for (const f of files) {
    const from = join(ROOT, f);
    if (!(await stat(from).catch(() => null))?.isFile()) continue; // deleted in the working tree
    await mkdir(dirname(join(dest, f)), { recursive: true });
    await cp(from, join(dest, f));
    copied++;
  }
  say(`clean copy: ${copied} tracked files`);
}

/** RUN lines made of npm commands only are run; the rest set up the system and are listed. */
async function runStep(arg, cwd) {
  const parts = arg.split("&&").map((p) => p.trim());
  if (!parts.every((p) => p.startsWith("npm "))) return say(`not run here (system setup): RUN ${arg.slice(0, 90)}`);
  for (const p of parts) {
    if (reuse && /^npm ci\b/.test(p)) {
      say(`npm ci → copying this checkout's node_modules (--reuse-node-modules)`);
      await cp(join(ROOT, "node_modules"), join(cwd, "node_modules"), { recursive: true, verbatimSymlinks: true });
      continue;
    }
    say(`RUN ${p}`);
    run("sh", ["-c", p], cwd);
  }
}

async function buildStage(instructions, src, dir) {
  for (const [op, arg] of instructions) {
    if (op === "COPY") {
      const words = arg.split(/\s+/);
      const dest = words.pop();
      for (const s of words) await cp(join(src, s), s === dest || dest.endsWith("/") ? join(dir, dest, s) : join(dir, dest), { recursive: true });
    } else if (op === "RUN") {
      await runStep(arg, dir);
    }
  }
}

async function runtimeStage(instructions, src, build, dir) {
  const image = { env: {}, entry: [], cmd: [], health: [], links: new Map() };
  for (const [op, arg] of instructions) {
    if (op === "COPY") {
      const from = /^--from=\S+\s+/.exec(arg);
      const [s, d] = arg.slice(from ? from[0].length : 0).split(/\s+/);
      const dest = d.endsWith("/") ? join(inApp(dir, d), s.split("/").pop()) : inApp(dir, d);
      await copyTree(from ? inApp(build, s) : join(src, s), dest, Boolean(from));
    } else if (op === "ENV") {
      for (const [, k, v] of arg.matchAll(/(\w+)=(\S+)/g)) image.env[k] = v;
    } else if (op === "RUN") {
      for (const [, target, link] of arg.matchAll(/ln -s (\S+) (\S+)/g)) image.links.set(link.split("/").pop(), target);
      say(`not run here (system setup): RUN ${arg.slice(0, 90)}`);
    } else if (op === "ENTRYPOINT") image.entry = jsonOrWords(arg);
    else if (op === "CMD") image.cmd = jsonOrWords(arg);
    else if (op === "HEALTHCHECK") image.health = jsonOrWords(arg.slice(arg.indexOf("CMD ") + 4));
  }
  return image;
}

/**
 * What the runtime stage takes from the build stage is never written again: hard links (cp -al) give the same
 * tree as a copy, without copying node_modules' ~250 MB once more. Elsewhere, or where links fail, a copy.
 */
async function copyTree(from, to, linkable) {
  if (linkable) {
    try {
      execFileSync("cp", ["-al", from, to], { stdio: "ignore" });
      return;
    } catch {
      await rm(to, { recursive: true, force: true });
    }
  }
  await cp(from, to, { recursive: true });
}

/** An image command line as this machine runs it: no tini, this node, a program the image links onto PATH resolved to its file. */
function local(argv, image, dir) {
  const words = argv[0]?.endsWith("tini") ? argv.slice(argv.indexOf("--") + 1) : [...argv];
  const linked = image.links.get(words[0]);
  if (linked) return [process.execPath, inApp(dir, linked), ...words.slice(1)];
  if (words[0] === "node") return [process.execPath, ...words.slice(1)];
  return words;
}

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

function exitOf(child) {
  return new Promise((r) => child.on("exit", (code, signal) => r(code ?? signal)));
}

async function startAndCheck(image, dir, home) {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ...image.env,
    HERMES_HOME: home,
    HERMES_HTTP_HOST: "127.0.0.1",
    HERMES_HTTP_PORT: String(port),
    HERMES_LOG_FORMAT: "json",
  };
  const [cmd, ...args] = local([...image.entry, ...image.cmd], image, dir);
  say(`start from the pruned tree: ${[cmd, ...args].join(" ")}`);
  const daemon = spawn(cmd, args, { cwd: dir, env, stdio: ["ignore", "pipe", "inherit"] });
  let log = "";
  daemon.stdout.on("data", (d) => (log += d));
  const exited = exitOf(daemon);
  try {
    await waitForHealth(`http://127.0.0.1:${port}/healthz`, daemon);
    say(`/healthz answers on port ${port}`);
    for (const argv of [image.health, ["hermes-gateway", "status"]]) {
      const [c, ...a] = local(argv, image, dir);
      const code = await exitOf(spawn(c, a, { cwd: dir, env, stdio: "inherit" }));
      if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}`);
      say(`${argv.join(" ")}: exit 0`);
    }
  } catch (err) {
    daemon.kill("SIGKILL");
    console.error(log);
    throw err;
  }
  daemon.kill("SIGTERM");
  const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("no exit within 60 s"), 60_000).unref())]);
  if (code !== 0) {
    daemon.kill("SIGKILL");
    console.error(log);
    throw new Error(`SIGTERM: expected exit 0, got ${code}`);
  }
  say("SIGTERM → exit 0");
}

async function waitForHealth(url, child) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the daemon exited ${child.exitCode} before /healthz answered`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within 60 s`);
}

async function main() {
  const [buildSteps, runtimeSteps] = parseDockerfile(await readFile(join(ROOT, "Dockerfile"), "utf8"));
  const work = await mkdtemp(join(tmpdir(), "hermes-docker-check-"));
  const [src, build, app, home] = ["src", "build", "app", "data"].map((d) => join(work, d));
  try {
    await cleanCopy(src);
    await mkdir(build);
    await buildStage(buildSteps, src, build);
    await mkdir(app);
    const image = await runtimeStage(runtimeSteps, src, build, app);
    for (const [name, target] of image.links) {
      if (!(await stat(inApp(app, target)).catch(() => null))) throw new Error(`the image links ${name} to ${target}, which the build does not produce`);
    }
    const shipped = await readdir(join(app, "dist"));
    if (shipped.join() !== "gateway") throw new Error(`the image's dist/ should hold the build alone (gateway/), not ${shipped.join(", ")}`);
    if (await stat(join(app, "node_modules", "vitest")).catch(() => null)) throw new Error("npm prune left the dev dependencies (vitest) in node_modules");
    await mkdir(home);
    await startAndCheck(image, app, home);
    say("the image's build steps work from a clean checkout");
  } finally {
    if (keep) say(`kept ${work}`);
    else await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`docker build check failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
