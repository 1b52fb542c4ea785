/** A pino logger at debug level whose JSON lines the test can read back (any area's tests). */
import { Writable } from "node:stream";
import { type Logger, pino } from "pino";

export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

export function captureLogger(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const text of chunk.toString("utf8").split("\n")) if (text) lines.push(JSON.parse(text) as LogLine);
      cb();
    },
  });
  return { log: pino({ level: "debug" }, stream), lines };
}
