/**
 * Telegram's MarkdownV2 parse mode as the Bot API enforces it, following the
 * parser of the Telegram server library (tdlib `parse_markdown_v2`): a `\`
 * before any ASCII character escapes it; outside code the characters
 * `_*[]()~`>#+-=|{}.!` are markup or an error; inside code only `` ` `` is;
 * `_` followed by `_` is underline; an entity ends at the first marker of its
 * own kind; `>` opens a quote only at the start of a line, and a quote ends at
 * the first line without one, where every other entity must be closed.
 * Returns the visible text (what counts against 4,096) with its entities, or
 * the error description the Bot API answers with. Written for the fake Bot
 * API, independently of the adapter's renderer, so that tests can fail.
 */

export type MdV2EntityType =
  | "bold"
  | "italic"
  | "underline"
  | "strikethrough"
  | "spoiler"
  | "code"
  | "pre"
  | "text_link"
  | "custom_emoji"
  | "blockquote"
  | "expandable_blockquote";

export interface MdV2Entity {
  readonly type: MdV2EntityType;
  /** UTF-16 offset and length in the visible text. */
  readonly offset: number;
  readonly length: number;
  readonly url?: string;
  readonly language?: string;
}

export type ParsedMarkdownV2 = { readonly text: string; readonly entities: readonly MdV2Entity[] } | { readonly error: string };

interface Open {
  readonly type: MdV2EntityType;
  /** tdlib's name, used in "Can't find end of X entity". */
  readonly name: string;
  readonly offset: number;
  /** Index in the source where the marker starts (reported as a UTF-8 byte offset). */
  readonly at: number;
  readonly language?: string;
}

const RESERVED = "_*[]()~`>#+-=|{}.!\n";
const RESERVED_IN_CODE = "`";

class ParseError extends Error {}

class MdV2Parser {
  private out = "";
  private readonly entities: MdV2Entity[] = [];
  private readonly open: Open[] = [];
  private quote = false;
  private canStartQuote = true;
  private i = 0;

  constructor(private readonly src: string) {}

  parse(): ParsedMarkdownV2 {
    try {
      for (this.i = 0; this.i < this.src.length; this.i++) this.step();
      this.finish();
    } catch (err) {
      if (err instanceof ParseError) return { error: `Bad Request: can't parse entities: ${err.message}` };
      throw err;
    }
    const entities = [...this.entities].sort((a, b) => a.offset - b.offset || b.length - a.length);
    return { text: this.out, entities };
  }

  private step(): void {
    const c = this.src[this.i] ?? "";
    const next = this.src.charCodeAt(this.i + 1);
    if (c === "\\" && next > 0 && next <= 126) {
      this.i++;
      this.emit(this.src[this.i] ?? "");
      if (this.src[this.i] !== "\r") this.canStartQuote = this.src[this.i] === "\n";
      return;
    }
    const top = this.open.at(-1);
    const reserved = top && (top.type === "code" || top.type === "pre") ? RESERVED_IN_CODE : RESERVED;
    if (!reserved.includes(c)) {
      this.emit(c);
      if (c !== "\r") this.canStartQuote = false;
      return;
    }
    if (top && this.endsEntity(top, c)) this.close(c);
    else this.begin(c);
  }

  /** Visible text; a \r is dropped by Telegram afterwards, so it takes no room. */
  private emit(ch: string): void {
    if (ch !== "\r") this.out += ch;
  }

  private endsEntity(top: Open, c: string): boolean {
    const at = (k: number): string => this.src[this.i + k] ?? "";
    if (this.quote && c === "\n" && at(1) !== ">") return true;
    switch (top.type) {
      case "bold":
        return c === "*";
      case "italic":
        return c === "_" && at(1) !== "_";
      case "underline":
        return c === "_" && at(1) === "_";
      case "strikethrough":
        return c === "~";
      case "spoiler":
        return c === "|" && at(1) === "|";
      case "code":
        return c === "`";
      case "pre":
        return c === "`" && at(1) === "`" && at(2) === "`";
      case "text_link":
      case "custom_emoji":
        return c === "]";
      default:
        return false;
    }
  }

  private begin(c: string): void {
    const at = this.i;
    const pair = (this.src[this.i + 1] ?? "") === c;
    switch (c) {
      case "_":
        if (pair) this.i++;
        return this.push(pair ? "underline" : "italic", pair ? "Underline" : "Italic", at);
      case "*":
        return this.push("bold", "Bold", at);
      case "~":
        return this.push("strikethrough", "Strikethrough", at);
      case "|":
        if (!pair) throw reserved(c);
        this.i++;
        return this.push("spoiler", "Spoiler", at);
      case "[":
        return this.push("text_link", "TextUrl", at);
      case "!":
        if (this.src[this.i + 1] !== "[") throw reserved(c);
        this.i++;
        return this.push("custom_emoji", "CustomEmoji", at);
      case "`":
        return this.src.startsWith("```", this.i) ? this.beginPre(at) : this.push("code", "Code", at);
      case "\n":
        this.out += "\n";
        this.canStartQuote = true;
        return;
      case ">":
        if (!this.canStartQuote) throw reserved(c);
        if (this.quote) return;
        this.quote = true;
        return this.push("blockquote", "BlockQuote", at);
      default:
        throw reserved(c);
    }
  }

  /** ```lang — the language runs to the first space or backtick; one newline after it is skipped. */
  private beginPre(at: number): void {
    let j = this.i + 3;
    let end = j;
    while (end < this.src.length && !/[ \t\r\n\v\f`]/.test(this.src[end] ?? "")) end++;
    let language: string | undefined;
    if (end !== j && end < this.src.length && this.src[end] !== "`") {
      language = this.src.slice(j, end);
      j = end;
    }
    const a = this.src[j];
    const b = this.src[j + 1];
    if (a === "\n" || a === "\r") j += (b === "\n" || b === "\r") && a !== b ? 2 : 1;
    this.i = j - 1;
    this.open.push({ type: "pre", name: language ? "PreCode" : "Pre", offset: this.out.length, at, ...(language ? { language } : {}) });
  }

  private push(type: MdV2EntityType, name: string, at: number): void {
    this.open.push({ type, name, offset: this.out.length, at });
  }

  private close(c: string): void {
    let top = this.open.at(-1) as Open;
    let type = top.type;
    if (c === "\n" && type !== "blockquote") {
      // Only a `||` right before the quote's last newline may be open here: it marks the quote expandable.
      const justOpened = top.type === "spoiler" && (top.at === this.i - 2 || (top.at === this.i - 3 && this.src[this.i - 1] === "\r"));
      if (!justOpened) throw unclosed(top, this.src);
      this.open.pop();
      top = this.open.at(-1) as Open;
      if (top?.type !== "blockquote") throw unclosed(top, this.src);
      type = "expandable_blockquote";
    }
    let skip = this.out.length === top.offset;
    let url: string | undefined;
    switch (type) {
      case "underline":
      case "spoiler":
        this.i++;
        break;
      case "pre":
        this.i += 2;
        break;
      case "text_link":
        url = this.linkUrl(top);
        if (!isValidUrl(url)) skip = true;
        break;
      case "custom_emoji":
        url = this.linkUrl(top);
        if (!url.startsWith("tg://emoji?id=")) throw new ParseError("Custom emoji entity must contain a tg://emoji URL");
        break;
      case "blockquote":
      case "expandable_blockquote":
        this.quote = false;
        this.out += "\n";
        this.canStartQuote = true;
        skip = false;
        break;
      default:
        break;
    }
    if (!skip)
      this.entities.push({
        type,
        offset: top.offset,
        length: this.out.length - top.offset,
        ...(url ? { url } : {}),
        ...(top.language ? { language: top.language } : {}),
      });
    this.open.pop();
  }

  /** After `]`: `(url)` with `\` escapes, or the label itself when no `(` follows. */
  private linkUrl(top: Open): string {
    if (this.src[this.i + 1] !== "(") return this.out.slice(top.offset);
    this.i += 2;
    const start = this.i;
    let url = "";
    while (this.i < this.src.length && this.src[this.i] !== ")") {
      const next = this.src.charCodeAt(this.i + 1);
      if (this.src[this.i] === "\\" && next > 0 && next <= 126) {
        url += this.src[this.i + 1];
        this.i += 2;
      } else {
        url += this.src[this.i];
        this.i++;
      }
    }
    if (this.src[this.i] !== ")") throw new ParseError(`Can't find end of a URL at byte offset ${byteOffset(this.src, start)}`);
    return url;
  }

  private finish(): void {
    if (this.quote) {
      let top = this.open.at(-1);
      let type: MdV2EntityType = "blockquote";
      if (top?.type === "spoiler" && top.at === this.src.length - 2) {
        this.open.pop();
        top = this.open.at(-1);
        type = "expandable_blockquote";
      }
      if (top?.type === "blockquote") {
        this.quote = false;
        if (this.out.length > top.offset) this.entities.push({ type, offset: top.offset, length: this.out.length - top.offset });
        this.open.pop();
      }
    }
    const top = this.open.at(-1);
    if (top) throw unclosed(top, this.src);
  }
}

/** Parses `text` like Telegram's MarkdownV2 mode. */
export function parseTelegramMarkdownV2(text: string): ParsedMarkdownV2 {
  return new MdV2Parser(text).parse();
}

function reserved(c: string): ParseError {
  return new ParseError(`Character '${c}' is reserved and must be escaped with the preceding '\\'`);
}

function unclosed(top: Open | undefined, src: string): ParseError {
  return new ParseError(`Can't find end of ${top?.name ?? "the"} entity at byte offset ${byteOffset(src, top?.at ?? 0)}`);
}

function byteOffset(src: string, index: number): number {
  return Buffer.byteLength(src.slice(0, index), "utf8");
}

/** Telegram drops (does not reject) a link whose URL it can't use. */
function isValidUrl(url: string): boolean {
  return /^(https?:\/\/|tg:\/\/|mailto:)\S+$/i.test(url) || /^[a-z0-9.-]+\.[a-z]{2,}(\/\S*)?$/i.test(url);
}
