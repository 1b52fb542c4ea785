/**
 * Docker cannot run on this machine, so the image is checked statically here:
 * every COPY source exists, the entrypoint is what `npm run build` produces,
 * and compose, the health check and the volume agree with the daemon. That the
 * build steps work from a clean checkout is proven by running them
 * (deploy/docker-build-check.mjs, in CI); its reading of the Dockerfile is tested below.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseDockerfile } from "../../deploy/docker-build-check.mjs";
import { renderUnit } from "../../gateway/cli/service-unit.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const unit = renderUnit({
  scope: "user",
  node: "/usr/bin/node",
  entry: "/opt/hermes/dist/gateway/cli.js",
  home: "/home/ada/.hermes",
  drainTimeoutS: 30,
  path: "/usr/bin:/bin",
});
const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));

describe("Dockerfile", () => {
  it("runs Node 24 in both stages", () => {
    const froms = instructions.filter((l) => l.startsWith("FROM "));
    expect(froms.length).toBe(2);
    for (const f of froms) expect(f).toMatch(/^FROM node:24[-\w.]*/);
  });

  it("copies only sources that exist in the repository", () => {
    const copies = instructions.filter((l) => l.startsWith("COPY ") && !l.includes("--from="));
    expect(copies.length).toBeGreaterThan(3);
    for (const c of copies) {
      const parts = c.split(/\s+/).slice(1, -1);
      for (const src of parts) expect(existsSync(join(ROOT, src)), `${src} missing`).toBe(true);
    }
  });

  it("installs from the lockfile, builds, and starts the built CLI", () => {
    expect(dockerfile).toContain("npm ci");
    expect(dockerfile).toContain("npm run build");
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.scripts.build).toBeDefined();
    expect(dockerfile).toContain(pkg.bin["hermes-gateway"]);
    expect(existsSync(join(ROOT, pkg.bin["hermes-gateway"] as string)), "run npm run build first").toBe(true);
  });

  it("keeps state in a volume, listens on all interfaces in the container, and checks health on the configured port", () => {
    expect(dockerfile).toMatch(/HERMES_HOME=\/data/);
    expect(dockerfile).toMatch(/HERMES_HTTP_HOST=0\.0\.0\.0/);
    expect(dockerfile).toMatch(/VOLUME \["\/data"\]/);
    // `hermes-gateway healthcheck` reads gateway.http.port (config, .env, HERMES_HTTP_PORT): no port written here.
    expect(dockerfile).toMatch(/^HEALTHCHECK .*CMD \["hermes-gateway", "healthcheck"\]$/m);
    expect(dockerfile).not.toMatch(/HEALTHCHECK .*8642/);
    expect(dockerfile).toMatch(/ENTRYPOINT \["\/usr\/bin\/tini"/);
  });

  it("puts the CLI on PATH, for docker compose exec gateway hermes-gateway status", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
    const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(runtimeStage).toContain(`ln -s /app/${pkg.bin["hermes-gateway"]} /usr/local/bin/hermes-gateway`);
    expect(runtimeStage).toContain(`chmod 755 /app/${pkg.bin["hermes-gateway"]}`);
    expect(readFileSync(join(ROOT, "gateway/cli.ts"), "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("builds sources only: tests and benchmarks are not copied into the image", () => {
    const copies = instructions.filter((l) => l.startsWith("COPY ")).join("\n");
    expect(copies).not.toMatch(/\b(test|bench)\b/);
  });

  it("is read by the build check as two stages, in order", () => {
    const [build, runtime] = parseDockerfile(dockerfile);
    expect(build?.map(([op]) => op)).toEqual(["FROM", "WORKDIR", "RUN", "COPY", "RUN", "COPY", "COPY", "COPY", "COPY", "COPY", "COPY", "COPY", "RUN"]);
    // The build script comes with the sources: npm run build is deploy/build.mjs.
    expect(build?.filter(([op]) => op === "COPY").map(([, arg]) => arg)).toContain("deploy/build.mjs ./deploy/build.mjs");
    expect(build?.at(-1)?.[1]).toBe("npm run build && npm prune --omit=dev");
    expect(runtime?.find(([op]) => op === "HEALTHCHECK")?.[1]).toMatch(/CMD \["hermes-gateway", "healthcheck"\]$/);
    expect(() => parseDockerfile("FROM a\nRUN x\n")).toThrow(/two|stage/);
  });

  it("limits glibc to two malloc arenas, as the systemd unit does", () => {
    expect(dockerfile).toMatch(/^ENV .*\bMALLOC_ARENA_MAX=2\b/m);
    expect(unit).toMatch(/^Environment=MALLOC_ARENA_MAX=2$/m);
  });

  it("has chrt for the MCP servers' SCHED_IDLE, and the unit runs in a cpu cgroup of its own", () => {
    const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(runtimeStage).toMatch(/apt-get install [^\n]*\butil-linux\b/);
    expect(unit).toMatch(/^CPUWeight=\d+$/m);
  });
});

describe("docker-compose.yml", () => {
  const compose = parse(readFileSync(join(ROOT, "docker-compose.yml"), "utf8")) as {
    services: Record<string, { build?: string; restart?: string; env_file?: unknown; volumes?: string[]; ports?: string[]; stop_grace_period?: string }>;
    volumes?: Record<string, unknown>;
  };
  it("builds this Dockerfile, restarts, passes the env file, keeps /data in a named volume, publishes the configured port on loopback", () => {
    const gw = compose.services.gateway;
    expect(gw?.build).toBe(".");
    expect(gw?.restart).toBe("unless-stopped");
    expect(gw?.env_file).toEqual([{ path: ".env", required: false }]);
    expect(gw?.volumes).toContain("hermes-data:/data");
    expect(Object.keys(compose.volumes ?? {})).toContain("hermes-data");
    expect(gw?.ports).toEqual(["127.0.0.1:${HERMES_HTTP_PORT:-8642}:${HERMES_HTTP_PORT:-8642}"]);
  });

  it("gives the daemon longer to stop than its own bound (drain 30 s + 15 s)", () => {
    expect(Number.parseInt(compose.services.gateway?.stop_grace_period ?? "0", 10)).toBeGreaterThan(45);
  });
});
