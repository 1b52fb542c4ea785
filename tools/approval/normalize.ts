/**
 * Canonicalises a command string before analysis, so look-alike text cannot
 * smuggle a command past the guard. Used for detection only — the command
 * that runs is always the original string.
 */
import stripAnsi from "strip-ansi";

/** Invisible and format characters (zero-width spaces, joiners, bidi controls, BOM, tags, soft hyphen). */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
/** Control characters other than tab and newline (NUL, DEL, C1 controls). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Cyrillic and Greek letters that render like Latin ones. NFKC leaves them
 * alone (they are distinct letters), so `ѕudo` or `rм` would otherwise read
 * as harmless unknown words.
 */
const CONFUSABLES: Readonly<Record<string, string>> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  һ: "h",
  і: "i",
  ї: "i",
  ј: "j",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ӏ: "l",
  ɡ: "g",
  ı: "i",
  ȷ: "j",
  А: "A",
  В: "B",
  Е: "E",
  Н: "H",
  І: "I",
  Ј: "J",
  К: "K",
  М: "M",
  О: "O",
  Р: "P",
  С: "C",
  Ѕ: "S",
  Т: "T",
  Х: "X",
  У: "Y",
  Ү: "Y",
  α: "a",
  ο: "o",
  ρ: "p",
  ν: "v",
  ι: "i",
  κ: "k",
  υ: "u",
  χ: "x",
  ε: "e",
  ϲ: "c",
  ϳ: "j",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
};
const CONFUSABLE_RE = new RegExp(`[${Object.keys(CONFUSABLES).join("")}]`, "g");

/** Longest command the guard analyses; anything longer is refused as suspicious. */
export const MAX_COMMAND_CHARS = 100_000;

export function normalizeCommand(raw: string): string {
  let s = stripAnsi(raw);
  s = s.replace(/\r\n?/g, "\n");
  s = s.replace(CONTROL, "");
  s = s.normalize("NFKC");
  s = s.replace(INVISIBLE, "");
  s = s.replace(CONFUSABLE_RE, (c) => CONFUSABLES[c] ?? c);
  // NFKC can turn fullwidth punctuation into shell syntax; run it once more over the result.
  return s.normalize("NFKC");
}
