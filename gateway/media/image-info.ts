/**
 * What an image file is, read from its first bytes: the format (the media
 * type providers need, whatever name or MIME type the platform gave it) and
 * its pixel size where the header says it. No image library: only the four
 * formats every vision API accepts are recognised.
 */

export type ImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

export interface ImageInfo {
  readonly mediaType: ImageType;
  /** Undefined when the header did not say (an unusual JPEG layout). */
  readonly width?: number;
  readonly height?: number;
}

/** The format and size of `buf`, or null when it is none of JPEG, PNG, GIF, WebP. */
export function sniffImage(buf: Uint8Array): ImageInfo | null {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) {
    return { mediaType: "image/png", width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (b.length >= 10 && b.toString("latin1", 0, 4) === "GIF8") {
    return { mediaType: "image/gif", width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  }
  if (b.length >= 16 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") {
    return { mediaType: "image/webp", ...webpSize(b) };
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) {
    return { mediaType: "image/jpeg", ...jpegSize(b) };
  }
  return null;
}

type Size = { width: number; height: number } | Record<string, never>;

function webpSize(b: Buffer): Size {
  const chunk = b.toString("latin1", 12, 16);
  if (chunk === "VP8X" && b.length >= 30) return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === "VP8 " && b.length >= 30) return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === "VP8L" && b.length >= 25) {
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  return {};
}

/** Start-of-frame markers (baseline, progressive, …) carry the size; DHT, JPG and DAC share the range but do not. */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** Walks the JPEG segments up to the first start-of-frame. */
function jpegSize(b: Buffer): Size {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return {};
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (isStartOfFrame(marker)) return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    i += 2 + b.readUInt16BE(i + 2);
  }
  return {};
}
