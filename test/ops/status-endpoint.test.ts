/** Who may ask the daemon's GET /status: loopback clients, with the API key when one is configured. */
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { type DaemonStatus, isLoopback, registerStatusRoute } from "../../gateway/status-endpoint.js";

const body = { pid: 1 } as DaemonStatus;

async function ask(apiKey: string | undefined, remoteAddress: string, authorization?: string, payload?: string): Promise<number> {
  const app = Fastify();
  registerStatusRoute(app, { apiKey, status: async () => body });
  const res = await app.inject({
    method: "GET",
    url: "/status",
    remoteAddress,
    ...(authorization ? { headers: { authorization } } : {}),
    ...(payload ? { payload } : {}),
  });
  await app.close();
  return res.statusCode;
}

describe("GET /status", () => {
  it("answers loopback clients and refuses others (a published container port arrives from the bridge)", async () => {
    expect(await ask(undefined, "127.0.0.1")).toBe(200);
    expect(await ask(undefined, "::1")).toBe(200);
    expect(await ask(undefined, "::ffff:127.0.0.1")).toBe(200);
    expect(await ask(undefined, "172.17.0.1")).toBe(403);
    expect(await ask(undefined, "::ffff:10.0.0.5")).toBe(403);
  });

  it("wants the API key as a bearer token when one is configured, even on loopback", async () => {
    expect(await ask("k-123", "127.0.0.1")).toBe(401);
    expect(await ask("k-123", "127.0.0.1", "Bearer wrong")).toBe(401);
    expect(await ask("k-123", "127.0.0.1", "Bearer k-123")).toBe(200);
    expect(await ask("k-123", "10.0.0.5", "Bearer k-123")).toBe(403);
  });

  it("takes no request body", async () => {
    expect(await ask(undefined, "127.0.0.1", undefined, "x".repeat(100))).toBe(413);
  });

  it("knows loopback addresses", () => {
    expect(["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"].every(isLoopback)).toBe(true);
    expect(["10.0.0.1", "::ffff:10.0.0.1", "0.0.0.0", "::", "", undefined].some(isLoopback)).toBe(false);
  });
});
