/** Real image files for media tests: PNGs built here, small samples of other formats in ../fixtures. */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { crc32, deflateSync } from "node:zlib";

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/**
 * A valid RGB PNG. `noise` fills it with random pixels, which do not
 * compress, so the file is about width × height × 3 bytes.
 */
export function makePng(width: number, height: number, opts: { noise?: boolean; rgb?: readonly [number, number, number] } = {}): Buffer {
  const row = width * 3 + 1;
  const raw = opts.noise ? randomBytes(row * height) : Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0; // filter: none
    if (opts.noise) continue;
    for (let x = 0; x < width; x++) raw.set(opts.rgb ?? [200, 30, 30], y * row + 1 + x * 3);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit, truecolour, deflate, no filter, no interlace
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw, { level: opts.noise ? 0 : 6 })), chunk("IEND", Buffer.alloc(0))]);
}

/** Writes a PNG into `dir` and returns its path and bytes. */
export async function pngFile(
  dir: string,
  name: string,
  width = 32,
  height = 24,
  opts: Parameters<typeof makePng>[2] = {},
): Promise<{ path: string; data: Buffer }> {
  const data = makePng(width, height, opts);
  const path = join(dir, name);
  await writeFile(path, data);
  return { path, data };
}

export const dataUrlOf = (data: Buffer, type = "image/png") => `data:${type};base64,${data.toString("base64")}`;
