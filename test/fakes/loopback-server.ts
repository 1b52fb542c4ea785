/**
 * The HTTP server under every fake: 127.0.0.1 on a free port, and a close()
 * that ends at once. It keeps its open sockets so close() can destroy them: a
 * client's keep-alive connection, or a request the fake holds open (a long
 * poll, a call it never answers), would otherwise keep server.close() waiting.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export class LoopbackServer {
  /** For `upgrade` listeners (the fakes' WebSockets). */
  readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(handler: RequestListener) {
    this.server = createServer(handler);
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** http://127.0.0.1:PORT */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A LoopbackServer listening already. */
export async function listenOnLoopback(handler: RequestListener): Promise<LoopbackServer> {
  const server = new LoopbackServer(handler);
  await server.listen();
  return server;
}
