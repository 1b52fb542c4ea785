/**
 * What one MCP server writes to stderr, as the supervisor reports it: every
 * line logged, the last few kept for its status, and bytes the worker had to
 * drop (a flooding server) warned about without flooding the log in turn.
 */
import type { Logger } from "pino";

const STDERR_TAIL = 10;
const FLOOD_WARN_EVERY_MS = 10_000;

export class ServerStderr {
  private lines: string[] = [];
  private dropped = 0;
  private droppedUnreported = 0;
  private lastFloodWarn: number | null = null;

  constructor(
    private readonly name: string,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** The last lines (a copy, oldest first). */
  tail(): string[] {
    return [...this.lines];
  }

  /** Bytes dropped since the server was configured. */
  get droppedBytes(): number {
    return this.dropped;
  }

  take(lines: readonly string[], droppedBytes: number): void {
    for (const line of lines) this.log.info({ mcp: this.name, stream: "stderr" }, line);
    this.lines = [...this.lines, ...lines].slice(-STDERR_TAIL);
    if (droppedBytes <= 0) return;
    this.dropped += droppedBytes;
    this.droppedUnreported += droppedBytes;
    // The first drop is reported at once, later ones summed up at most every FLOOD_WARN_EVERY_MS.
    const now = this.now();
    if (this.lastFloodWarn !== null && now - this.lastFloodWarn < FLOOD_WARN_EVERY_MS) return;
    this.log.warn(
      { mcp: this.name, droppedBytes: this.droppedUnreported },
      `MCP server "${this.name}" is flooding stderr; ${this.droppedUnreported} bytes were not logged`,
    );
    this.lastFloodWarn = now;
    this.droppedUnreported = 0;
  }
}
