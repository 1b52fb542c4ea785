/**
 * Atomic file replacement: write a temp file in the same directory, fsync it,
 * then rename it over the target. Readers (and a crash) see either the old
 * complete file or the new complete file, never a truncated one. Shared by
 * write_file, patch, memory and skills.
 */
import { randomUUID } from "node:crypto";
import { mkdir, open, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errnoCode } from "./shared.js";

export interface AtomicWriteResult {
  /** The path actually written (symlinks are followed so the link survives). */
  readonly path: string;
  readonly bytes: number;
  /** True when no file existed before. */
  readonly created: boolean;
}

/** Follow a symlink at `path` so replacing the file keeps the link; a missing file resolves to itself. */
async function resolveTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return path;
    throw err;
  }
}

/** Mode of the existing file (kept on the new one), or null when there is none. */
async function existingMode(path: string): Promise<number | null> {
  try {
    const s = await stat(path);
    if (s.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: "EISDIR" });
    return s.mode & 0o7777;
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return null;
    throw err;
  }
}

/**
 * Replace `path` with `data` atomically, creating parent directories.
 * On any failure the temp file is removed and the target is untouched.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, signal?: AbortSignal): Promise<AtomicWriteResult> {
  signal?.throwIfAborted();
  await mkdir(dirname(path), { recursive: true });
  const target = await resolveTarget(path);
  const mode = await existingMode(target);
  const tmp = join(dirname(target), `.${basename(target)}.${randomUUID().slice(0, 8)}.tmp`);
  const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
  let fh: Awaited<ReturnType<typeof open>> | null = null;
  try {
    fh = await open(tmp, "wx", mode ?? 0o666);
    await fh.writeFile(data, signal ? { signal } : {});
    await fh.sync();
    await fh.close();
    fh = null;
    signal?.throwIfAborted();
    await rename(tmp, target);
    return { path: target, bytes, created: mode === null };
  } catch (err) {
    await cleanup(fh, tmp, err);
    throw err;
  }
}

/** Close and delete the temp file; a cleanup failure is attached to the original error rather than hiding it. */
async function cleanup(fh: Awaited<ReturnType<typeof open>> | null, tmp: string, original: unknown): Promise<void> {
  try {
    if (fh) await fh.close();
    await rm(tmp, { force: true });
  } catch (cleanupErr) {
    if (original instanceof Error) Object.assign(original, { cleanupError: cleanupErr });
  }
}
