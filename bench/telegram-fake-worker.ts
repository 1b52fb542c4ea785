/**
 * The fake Bot API in its own thread, so the bench's timings are not skewed
 * by sharing one event loop with the adapter (Telegram is another machine).
 * Messages in: {op:"push", update} | {op:"stats"} | {op:"close"}.
 */
import { parentPort, workerData } from "node:worker_threads";
import { FakeTelegramApi, type FakeTelegramOptions } from "../test/fakes/telegram-api.js";
import type { NewUpdate } from "../test/fakes/telegram-updates.js";

export interface WorkerStats {
  readonly calls: ReadonlyArray<{ method: string; chatId: string | undefined; at: number; status: number }>;
  readonly flood429s: number;
  readonly floodLog: ReadonlyArray<{ bucket: string; earlyMs: number }>;
}

type Request = { op: "push"; id: number; update: NewUpdate } | { op: "stats"; id: number } | { op: "close"; id: number };

const fake = new FakeTelegramApi(workerData as FakeTelegramOptions);
await fake.start();
parentPort?.postMessage({ op: "ready", apiRoot: fake.apiRoot, token: fake.token });
parentPort?.on("message", (msg: Request) => {
  if (msg.op === "push") {
    parentPort?.postMessage({ id: msg.id, result: fake.pushUpdate(msg.update) });
  } else if (msg.op === "stats") {
    const stats: WorkerStats = {
      calls: fake.calls.map((c) => ({ method: c.method, chatId: c.chatId, at: c.at, status: c.status })),
      flood429s: fake.flood429s,
      floodLog: fake.floodLog,
    };
    parentPort?.postMessage({ id: msg.id, result: stats });
  } else {
    void fake.close().then(() => {
      parentPort?.postMessage({ id: msg.id, result: null });
      parentPort?.close();
    });
  }
});
