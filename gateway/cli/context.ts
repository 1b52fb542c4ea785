/**
 * What every command needs: HERMES_HOME, the loaded config (or the reason it
 * could not be loaded), output streams and the version.
 */
import { mkdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Config, ConfigError, loadConfig } from "../../config/index.js";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (t) => void process.stdout.write(t.endsWith("\n") ? t : `${t}\n`),
  err: (t) => void process.stderr.write(t.endsWith("\n") ? t : `${t}\n`),
};

export function resolveHome(env: Readonly<Record<string, string | undefined>>): string {
  const raw = env.HERMES_HOME?.trim();
  if (!raw) return join(homedir(), ".hermes");
  return resolve(raw.startsWith("~/") ? join(homedir(), raw.slice(2)) : raw);
}

export async function ensureHome(home: string): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
}

/** Loads the config, printing every problem and returning null when it is invalid. */
export async function loadOrReport(
  home: string,
  configPath: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  io: CliIo,
): Promise<Config | null> {
  try {
    return await loadConfig({ home, env, ...(configPath ? { configPath: resolve(configPath) } : {}) });
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`${err.code}: ${err.message}`);
      return null;
    }
    throw err;
  }
}

/** The package version, read from package.json (works from source and from dist/). */
export async function packageVersion(): Promise<string> {
  for (const rel of ["../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(await readFile(fileURLToPath(new URL(rel, import.meta.url)), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "hermes-gateway" && pkg.version) return pkg.version;
    } catch {
      // not at this depth; try the next
    }
  }
  return "0.0.0";
}
