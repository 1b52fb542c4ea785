/**
 * Tells whether a server answers a request from its headers alone: sends the
 * headers and the first part of a large declared body, then waits for the
 * answer without sending the rest. A server that reads (or waits for) the
 * body before deciding cannot answer before the body is complete, so an answer
 * here proves the body was not read; no timing decides the outcome.
 */
import { request } from "node:http";

export interface EarlyAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
  /** Of the declared body, what had been sent when the answer came. */
  readonly sentBytes: number;
  readonly declaredBytes: number;
  /** Whether the server then closed the connection rather than read the rest. */
  readonly closedByServer: boolean;
}

/** Gives up (rejecting) after `waitMs`: only a server that waits for the body takes that long. */
export function answerBeforeBody(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; declaredBytes?: number; waitMs?: number } = {},
): Promise<EarlyAnswer> {
  const declaredBytes = opts.declaredBytes ?? 8 * 1024 * 1024;
  const first = Buffer.alloc(16 * 1024, "x");
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: opts.method ?? "POST",
      headers: { "content-type": "application/json", ...opts.headers, "content-length": String(declaredBytes) },
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${opts.waitMs ?? 10_000} ms while the body was incomplete: the server waited for the body`));
    }, opts.waitMs ?? 10_000);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on("response", (res) => {
      clearTimeout(timer);
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => {
        const socket = req.socket;
        let settled = false;
        const done = (closedByServer: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(keptOpen);
          req.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, sentBytes: first.length, declaredBytes, closedByServer });
        };
        // A server that keeps the connection for the rest of the body never closes it: that is the `false` case.
        const keptOpen = setTimeout(() => done(false), opts.waitMs ?? 10_000);
        if (!socket || socket.destroyed || socket.readableEnded) return done(true);
        socket.once("end", () => done(true));
        socket.once("close", () => done(true));
      });
    });
    req.write(first);
  });
}
