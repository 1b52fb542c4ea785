/**
 * Binary-file detection and a best-effort MIME guess, so read_file can refuse
 * a binary with a message that says what the file probably is.
 */
import { extname } from "node:path";

/** Bytes sampled from the start of a file for the text/binary decision. */
export const SNIFF_BYTES = 8192;

/** Share of suspicious bytes above which a sample counts as binary. */
const NON_TEXT_RATIO = 0.3;

/**
 * True when the sample looks binary: any NUL byte, or more than 30 % control
 * bytes / invalid UTF-8. Tab, newline, carriage return, form feed and escape
 * (ANSI colours in logs) count as text.
 */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  if (sample.includes(0)) return true;
  let suspicious = 0;
  for (const b of sample) {
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) suspicious++;
  }
  suspicious += invalidUtf8Bytes(sample);
  return suspicious / sample.length > NON_TEXT_RATIO;
}

/** Count bytes that are not part of a well-formed UTF-8 sequence (a cut sequence at the end is fine). */
function invalidUtf8Bytes(s: Uint8Array): number {
  let bad = 0;
  let i = 0;
  while (i < s.length) {
    const b = s[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) {
      bad++;
      i++;
      continue;
    }
    let j = 1;
    while (j <= need && i + j < s.length && (s[i + j]! & 0xc0) === 0x80) j++;
    const truncatedAtEnd = i + j >= s.length;
    if (j <= need && !truncatedAtEnd) bad += j;
    i += j;
  }
  return bad;
}

const MAGIC: ReadonlyArray<readonly [readonly number[], string]> = [
  [[0x89, 0x50, 0x4e, 0x47], "image/png"],
  [[0xff, 0xd8, 0xff], "image/jpeg"],
  [[0x47, 0x49, 0x46, 0x38], "image/gif"],
  [[0x25, 0x50, 0x44, 0x46], "application/pdf"],
  [[0x50, 0x4b, 0x03, 0x04], "application/zip"],
  [[0x1f, 0x8b], "application/gzip"],
  [[0x7f, 0x45, 0x4c, 0x46], "application/x-executable"],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], "application/vnd.sqlite3"],
  [[0x4f, 0x67, 0x67, 0x53], "audio/ogg"],
  [[0x49, 0x44, 0x33], "audio/mpeg"],
];

const BY_EXTENSION: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".ico": "image/x-icon",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".tar": "application/x-tar",
  ".mp3": "audio/mpeg",
  ".ogg": "audio/ogg",
  ".wav": "audio/wav",
  ".mp4": "video/mp4",
  ".mov": "video/quicktime",
  ".db": "application/vnd.sqlite3",
  ".sqlite": "application/vnd.sqlite3",
  ".wasm": "application/wasm",
  ".so": "application/x-sharedlib",
  ".exe": "application/x-msdownload",
};

/** Guess a MIME type from magic bytes, then the extension; `application/octet-stream` when unknown. */
export function guessMime(path: string, sample: Uint8Array): string {
  for (const [magic, mime] of MAGIC) {
    if (magic.every((b, i) => sample[i] === b)) {
      if (mime === "application/zip" && extname(path).toLowerCase() !== ".zip") return BY_EXTENSION[extname(path).toLowerCase()] ?? mime;
      return mime;
    }
  }
  return BY_EXTENSION[extname(path).toLowerCase()] ?? "application/octet-stream";
}
