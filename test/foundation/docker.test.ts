/**
 * Docker cannot run on this machine, so the image is checked statically:
 * every COPY source exists, the entrypoint is what `npm run build` produces,
 * and compose, the health check and the volume agree with the daemon's defaults.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
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

  it("keeps state in a volume, listens on all interfaces in the container, and checks /healthz", () => {
    expect(dockerfile).toMatch(/HERMES_HOME=\/data/);
    expect(dockerfile).toMatch(/HERMES_HTTP_HOST=0\.0\.0\.0/);
    expect(dockerfile).toMatch(/VOLUME \["\/data"\]/);
    expect(dockerfile).toMatch(/HEALTHCHECK .*\/healthz/);
    expect(dockerfile).toMatch(/ENTRYPOINT \["\/usr\/bin\/tini"/);
  });

  it("limits glibc to two malloc arenas, as the systemd unit does", () => {
    expect(dockerfile).toMatch(/^ENV .*\bMALLOC_ARENA_MAX=2\b/m);
    const unit = readFileSync(join(ROOT, "deploy/hermes-gateway.service"), "utf8");
    expect(unit).toMatch(/^Environment=MALLOC_ARENA_MAX=2$/m);
  });

  it("has chrt for the MCP servers' SCHED_IDLE, and the unit runs in a cpu cgroup of its own", () => {
    const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(runtimeStage).toMatch(/apt-get install [^\n]*\butil-linux\b/);
    const unit = readFileSync(join(ROOT, "deploy/hermes-gateway.service"), "utf8");
    expect(unit).toMatch(/^CPUWeight=\d+$/m);
  });
});

describe("docker-compose.yml", () => {
  const compose = parse(readFileSync(join(ROOT, "docker-compose.yml"), "utf8")) as {
    services: Record<string, { build?: string; restart?: string; volumes?: string[]; ports?: string[]; stop_grace_period?: string }>;
  };
  it("builds this Dockerfile, restarts, persists /data and publishes the HTTP port on loopback", () => {
    const gw = compose.services.gateway;
    expect(gw?.build).toBe(".");
    expect(gw?.restart).toBe("unless-stopped");
    expect(gw?.volumes?.some((v) => v.endsWith(":/data"))).toBe(true);
    expect(gw?.ports).toContain("127.0.0.1:8642:8642");
    expect(Number.parseInt(gw?.stop_grace_period ?? "0", 10)).toBeGreaterThan(30);
  });
});
