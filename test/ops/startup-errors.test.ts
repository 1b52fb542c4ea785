/**
 * Start-up failures a person can fix, each with its code and what to change:
 * the HTTP port held by another process (the real command against a really
 * occupied port: exit 1, stderr naming the port and the key to change), an
 * address the host does not have, and a --config file that does not exist.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../gateway/cli/main.js";
import { listen } from "../../gateway/http.js";
import { spawnCli } from "../fakes/daemon-process.js";
import { captureIo } from "./helpers.js";

describe("start-up errors", () => {
  let home = "";
  let holder: Server;
  let port = 0;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "hermes-startup-errors-"));
    // Another process's server, as far as the daemon can tell: the port is taken.
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    port = (holder.address() as AddressInfo).port;
  });

  afterEach(async () => {
    await new Promise((resolve) => holder.close(resolve));
    await rm(home, { recursive: true, force: true });
  });

  it("a port in use: exit 1, HGW_ERR_PORT_IN_USE on stderr naming the port and what to change, the same code in the log", async () => {
    const d = spawnCli(["run"], { HERMES_HOME: home, HERMES_HTTP_PORT: String(port) });
    expect(await d.exited).toBe(1);
    expect(d.stderr()).toContain(`HGW_ERR_PORT_IN_USE: The HTTP port is already in use by another process.`);
    expect(d.stderr()).toContain(`(port ${port} on 127.0.0.1)`);
    expect(d.stderr()).toContain("gateway.http.port");
    expect(d.stderr()).toContain("HERMES_HTTP_PORT");
    const fatal = d
      .stdout()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l["msg"] === "startup failed");
    expect(fatal?.["code"]).toBe("HGW_ERR_PORT_IN_USE");
  }, 60_000);

  it("an address this host does not have: HGW_ERR_HTTP_LISTEN with the address", async () => {
    const app = Fastify();
    try {
      // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
      await expect(listen(app, { host: "192.0.2.1", port })).rejects.toMatchObject({
        code: "HGW_ERR_HTTP_LISTEN",
        message: expect.stringContaining(`(port ${port} on 192.0.2.1)`),
      });
    } finally {
      await app.close();
    }
  });

  it("a port in use, told apart from other refusals", async () => {
    const app = Fastify();
    try {
      await expect(listen(app, { host: "127.0.0.1", port })).rejects.toMatchObject({ code: "HGW_ERR_PORT_IN_USE" });
    } finally {
      await app.close();
    }
  });

  it("a --config file that does not exist: exit 78 with HGW_ERR_CONFIG_NOT_FOUND and the path", async () => {
    const io = captureIo();
    const missing = join(home, "nowhere.yaml");
    expect(await main(["run", "--config", missing], { HERMES_HOME: home }, io)).toBe(78);
    expect(io.stderr()).toBe(`HGW_ERR_CONFIG_NOT_FOUND: The config file given with --config does not exist. (${missing})`);
  });
});
