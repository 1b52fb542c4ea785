/**
 * Reads a sed program the way GNU sed does, far enough to find what it
 * executes and writes: the `e COMMAND` command, the `e` flag of `s///`
 * (which runs the pattern space), and the files of `w`/`W` and `s///w`.
 */

export interface SedEffects {
  /** Commands given to `e`. */
  readonly commands: string[];
  /** Replacement texts of `s///e` (what they run depends on the input; the text is the best guess). */
  readonly replacements: string[];
  /** `e` without a command, or an `s///e`: runs text that comes from the input. */
  runsInput: boolean;
  readonly writes: string[];
  /** The program could not be read to the end; the caller fails closed. */
  unreadable: boolean;
}

const NO_ARGUMENT = new Set(["=", "d", "D", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z", "F", "l", "L", "q", "Q"]);

export function sedEffects(program: string): SedEffects {
  const fx: SedEffects = { commands: [], replacements: [], runsInput: false, writes: [], unreadable: false };
  const r = new Reader(program);
  while (!r.done()) {
    r.skip(/[\s;]/);
    if (r.done()) break;
    if (r.peek() === "#") {
      r.restOfLine();
      continue;
    }
    if (!r.address()) return { ...fx, unreadable: true };
    r.skip(/[\s!]/);
    const c = r.next();
    if (c === "{" || c === "}") continue;
    if (!command(c, r, fx)) return { ...fx, unreadable: true };
  }
  return fx;
}

/** One command after its address; false when it is not one sed knows. */
function command(c: string, r: Reader, fx: SedEffects): boolean {
  if (c === "s") return substitute(r, fx);
  if (c === "y") return r.delimited(2) !== null;
  if (c === "e") {
    const cmd = r.restOfLine().trim();
    if (cmd) fx.commands.push(cmd);
    else fx.runsInput = true;
  } else if (c === "w" || c === "W") fx.writes.push(r.restOfLine().trim());
  else if ("aicrR:".includes(c)) r.restOfLine();
  else if ("btTv".includes(c)) r.until(/[;\n}]/);
  else if (NO_ARGUMENT.has(c)) r.skip(/\d/);
  else return false;
  return true;
}

function substitute(r: Reader, fx: SedEffects): boolean {
  const parts = r.delimited(2);
  if (parts === null) return false;
  const flags = r.until(/[;\n}\s]/);
  const w = flags.indexOf("w");
  const execFlags = w >= 0 ? flags.slice(0, w) : flags;
  if (execFlags.includes("e")) {
    fx.runsInput = true;
    fx.replacements.push((parts[1] as string).replace(/\\(.)/g, "$1"));
  }
  if (w >= 0) fx.writes.push((flags.slice(w + 1) + r.restOfLine()).trim());
  return true;
}

class Reader {
  private i = 0;
  constructor(private readonly s: string) {}
  done(): boolean {
    return this.i >= this.s.length;
  }
  peek(): string {
    return this.s[this.i] ?? "";
  }
  next(): string {
    return this.s[this.i++] ?? "";
  }
  skip(re: RegExp): void {
    while (!this.done() && re.test(this.peek())) this.i++;
  }
  until(re: RegExp): string {
    const start = this.i;
    while (!this.done() && !re.test(this.peek())) this.i++;
    return this.s.slice(start, this.i);
  }
  restOfLine(): string {
    const text = this.until(/\n/);
    this.i++;
    return text;
  }
  /** `n parts` separated by the delimiter that follows (backslash escapes it). */
  delimited(n: number): string[] | null {
    const delim = this.next();
    if (!delim || delim === "\n" || delim === "\\") return null;
    const parts: string[] = [];
    let cur = "";
    while (parts.length < n) {
      if (this.done()) return null;
      const c = this.next();
      if (c === "\\") cur += c + this.next();
      else if (c === delim) {
        parts.push(cur);
        cur = "";
      } else cur += c;
    }
    return parts;
  }
  /** Skips an address or range (`3`, `$`, `/re/I`, `\cREc`, `1~2`, `addr,+3`); false when malformed. */
  address(): boolean {
    for (let n = 0; n < 2; n++) {
      if (/[\d$]/.test(this.peek())) this.skip(/[\d$~+]/);
      else if (this.peek() === "/" || this.peek() === "\\") {
        if (this.peek() === "\\") this.i++;
        if (this.delimited(1) === null) return false;
        this.skip(/[IM]/);
      } else if (n === 1 && /[+~]/.test(this.peek())) this.skip(/[\d+~]/);
      if (n === 0 && this.peek() === ",") this.i++;
      else break;
    }
    return true;
  }
}
