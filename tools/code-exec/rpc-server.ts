/**
 * The script's side channel: a Unix domain socket speaking newline-delimited
 * JSON, one request `{"id", "tool", "args"}` per line, one reply `{"id",
 * "result"}` per request. Requests are dispatched as they arrive (replies may
 * come back out of order; the id pairs them). A line that is not JSON, or a
 * line past the size cap, is answered with an error result; past the cap the
 * connection is closed. `close()` stops listening, drops every connection and
 * resolves when the server is closed.
 */
import { createServer, type Server, type Socket } from "node:net";

/** Turns one request into the tool's result text. Must not reject. */
export type RpcHandler = (tool: string, args: unknown) => Promise<string>;

export interface RpcServer {
  readonly path: string;
  close(): Promise<void>;
}

/** Largest request line accepted (a write_file of a generated file fits well within it). */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

const errorResult = (message: string) => JSON.stringify({ error: message });

export async function startRpcServer(path: string, handle: RpcHandler): Promise<RpcServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy()); // the script went away mid-reply: nothing to tell it
    serveConnection(socket, handle);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function serveConnection(socket: Socket, handle: RpcHandler): void {
  let buf = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10)) {
      const line = buf.subarray(0, nl).toString("utf8");
      buf = buf.subarray(nl + 1);
      if (line.trim()) void answer(socket, line, handle);
    }
    if (buf.length > MAX_REQUEST_BYTES) {
      reply(socket, null, errorResult(`request larger than ${MAX_REQUEST_BYTES} bytes`));
      socket.end();
    }
  });
}

async function answer(socket: Socket, line: string, handle: RpcHandler): Promise<void> {
  let request: { id?: unknown; tool?: unknown; args?: unknown };
  try {
    request = JSON.parse(line) as typeof request;
  } catch (err) {
    return reply(socket, null, errorResult(`invalid request (not JSON): ${(err as Error).message}`));
  }
  const id = request?.id ?? null;
  if (typeof request?.tool !== "string") return reply(socket, id, errorResult('invalid request: "tool" must be a tool name'));
  reply(socket, id, await handle(request.tool, request.args ?? {}));
}

function reply(socket: Socket, id: unknown, result: string): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify({ id, result })}\n`);
}
