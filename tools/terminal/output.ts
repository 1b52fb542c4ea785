/**
 * Output handling for commands: decoding, ANSI stripping, secret redaction
 * and bounded storage. Text is cleaned a line at a time so a token is never
 * split by a chunk boundary before redaction sees it.
 */
import { StringDecoder } from "node:string_decoder";
import stripAnsi from "strip-ansi";
import { type Redactor, redactSecrets } from "../common/redact.js";

/** Longest partial line held back waiting for its newline (progress bars never send one). */
const MAX_PENDING = 8192;

/** Turns raw chunks into cleaned text, complete lines first. */
export class LineCleaner {
  private readonly decoder = new StringDecoder("utf8");
  private pending = "";
  constructor(private readonly redact?: Redactor) {}

  /** Cleaned text for every complete line in `chunk` (plus an over-long partial line). */
  push(chunk: Buffer | string): string {
    this.pending += typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    const cut = this.pending.lastIndexOf("\n");
    if (cut < 0 && this.pending.length < MAX_PENDING) return "";
    const end = cut < 0 ? this.pending.length : cut + 1;
    const ready = this.pending.slice(0, end);
    this.pending = this.pending.slice(end);
    return this.clean(ready);
  }

  /** The held-back partial line, decoded so far (the decoder keeps any split character). */
  drainPartial(): string {
    const rest = this.pending;
    this.pending = "";
    return rest ? this.clean(rest) : "";
  }

  /** Everything still held back. */
  flush(): string {
    const rest = this.pending + this.decoder.end();
    this.pending = "";
    return rest ? this.clean(rest) : "";
  }

  private clean(text: string): string {
    return redactSecrets(stripAnsi(text).replace(/\r\n/g, "\n"), this.redact);
  }
}

/**
 * Keeps the first `headChars` and the last `tailChars` of a stream, counting
 * what falls in between, so huge output costs bounded memory and the result
 * shows both how a command started and how it ended.
 */
export class CappedText {
  private head = "";
  private tail = "";
  private total = 0;
  constructor(
    private readonly headChars: number,
    private readonly tailChars: number,
  ) {}

  append(text: string): void {
    if (!text) return;
    this.total += text.length;
    const room = this.headChars - this.head.length;
    if (room > 0) {
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (!text) return;
    this.tail += text;
    if (this.tail.length > this.tailChars * 2) this.tail = this.tail.slice(-this.tailChars);
  }

  get totalChars(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.total > this.headChars + this.tailChars;
  }

  text(): string {
    if (!this.truncated) return this.head + this.tail;
    const tail = this.tail.slice(-this.tailChars);
    const omitted = this.total - this.head.length - tail.length;
    return `${this.head}\n\n[... ${omitted} characters of output omitted (${this.total} total); showing the first ${this.head.length} and last ${tail.length} ...]\n\n${tail}`;
  }
}

/**
 * A bounded log addressed by absolute character offsets: readers keep their
 * offset across calls and learn when older text has been dropped.
 */
export class RingLog {
  private data = "";
  private start = 0;
  constructor(private readonly capacity: number) {}

  append(text: string): void {
    if (!text) return;
    this.data += text;
    if (this.data.length > this.capacity) {
      const drop = this.data.length - this.capacity;
      this.data = this.data.slice(drop);
      this.start += drop;
    }
  }

  /** Absolute offset just past the last character written. */
  get end(): number {
    return this.start + this.data.length;
  }

  /** Offset of the oldest character still held. */
  get first(): number {
    return this.start;
  }

  /** Up to `limit` characters from absolute `offset` (clamped to what is still held). */
  read(offset: number, limit: number): { text: string; from: number; to: number; dropped: number } {
    const from = Math.max(offset, this.start);
    const rel = Math.min(from - this.start, this.data.length);
    const text = this.data.slice(rel, rel + Math.max(0, limit));
    return { text, from, to: from + text.length, dropped: Math.max(0, this.start - offset) };
  }

  /** The last `chars` characters, snapped forward to a line start when that loses little. */
  tail(chars: number): { text: string; truncated: boolean } {
    if (this.data.length <= chars && this.start === 0) return { text: this.data, truncated: false };
    let text = this.data.slice(-chars);
    const nl = text.indexOf("\n");
    if (nl >= 0 && nl < chars / 4) text = text.slice(nl + 1);
    return { text, truncated: true };
  }
}
