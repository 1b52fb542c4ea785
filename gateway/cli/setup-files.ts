/**
 * The two files the wizard writes, edited in place: config.yaml through the
 * yaml package's Document (comments, order and every other key stay as they
 * are) and .env line by line (other lines and comments stay). Secrets go to
 * .env only; both files are written whole and renamed into place, mode 0600.
 */
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseEnv } from "node:util";
import { type Document, isMap, isScalar, isSeq, parseDocument } from "yaml";

const HEADER = [
  " hermes-gateway configuration. Every key and its default: docs/configuration.md.",
  " `hermes-gateway setup` edits this file in place: your comments and other keys stay.",
  " Secrets (API keys, bot tokens) live in .env beside it.",
].join("\n");

export class SetupFiles {
  private readonly changedYaml = new Set<string>();
  private readonly changedEnv = new Set<string>();

  private constructor(
    readonly configPath: string,
    readonly envPath: string,
    readonly doc: Document,
    private envLines: string[],
  ) {}

  static async load(home: string, configPath: string | undefined): Promise<SetupFiles> {
    const cfg = configPath ?? join(home, "config.yaml");
    const envPath = join(home, ".env");
    const yamlText = await readOptional(cfg);
    const envText = await readOptional(envPath);
    const doc = parseDocument(yamlText ?? "");
    if (yamlText === null || yamlText.trim() === "") doc.commentBefore = HEADER;
    return new SetupFiles(cfg, envPath, doc, envText === null || envText === "" ? [] : envText.replace(/\n$/, "").split("\n"));
  }

  /** An independent copy, to try edits on before making them. */
  clone(): SetupFiles {
    const copy = new SetupFiles(this.configPath, this.envPath, this.doc.clone(), [...this.envLines]);
    for (const k of this.changedYaml) copy.changedYaml.add(k);
    for (const k of this.changedEnv) copy.changedEnv.add(k);
    return copy;
  }

  /** The value at `path` in config.yaml as written (a `${VAR}` reference stays a reference). */
  getYaml(path: readonly string[]): unknown {
    const v = this.doc.getIn(path, false);
    return isScalar(v) ? v.value : isSeq(v) || isMap(v) ? v.toJSON() : v;
  }

  setYaml(path: readonly string[], value: unknown): void {
    if (JSON.stringify(this.getYaml(path)) === JSON.stringify(value)) return;
    this.doc.setIn(path, value);
    this.changedYaml.add(path.join("."));
  }

  deleteYaml(path: readonly string[]): void {
    if (!this.doc.hasIn(path)) return;
    this.doc.deleteIn(path);
    this.changedYaml.add(path.join("."));
  }

  /** Appends `id` to the list at `path` unless it is there (the items already listed stay as they are written). */
  addToList(path: readonly string[], id: string): void {
    const node = this.doc.getIn(path, true);
    if (!isSeq(node)) return this.setYaml(path, [id]);
    if (node.items.some((item) => String(isScalar(item) ? item.value : item) === id)) return;
    node.add(this.doc.createNode(id));
    this.changedYaml.add(path.join("."));
  }

  getEnv(key: string): string | undefined {
    return parseEnv(this.envLines.join("\n"))[key];
  }

  /** Replaces the line that sets `key` (the first; later ones are dropped), or appends one. */
  setEnv(key: string, value: string): void {
    if (this.getEnv(key) === value) return;
    const sets = (l: string) => new RegExp(`^\\s*(?:export\\s+)?${key}\\s*=`).test(l);
    const at = this.envLines.findIndex(sets);
    const line = `${key}=${envValue(value)}`;
    if (at < 0) this.envLines.push(line);
    else this.envLines = this.envLines.flatMap((l, i) => (i === at ? [line] : i > at && sets(l) ? [] : [l]));
    this.changedEnv.add(key);
  }

  /** Names of what changed (never values). */
  changes(): { readonly yaml: readonly string[]; readonly env: readonly string[] } {
    return { yaml: [...this.changedYaml], env: [...this.changedEnv] };
  }

  yamlText(): string {
    return this.doc.toString();
  }

  envText(): string {
    return this.envLines.length === 0 ? "" : `${this.envLines.join("\n")}\n`;
  }

  /** Writes what changed; returns the paths written. */
  async save(): Promise<string[]> {
    const written: string[] = [];
    if (this.changedYaml.size > 0) written.push(await writePrivate(this.configPath, this.yamlText()));
    if (this.changedEnv.size > 0) written.push(await writePrivate(this.envPath, this.envText()));
    return written;
  }
}

/** A .env value as node's parser (and the daemon's loader) reads it back. */
function envValue(value: string): string {
  if (/[\r\n]/.test(value)) throw new Error("a value in .env cannot span lines");
  if (/^[\w.:/+=@,~-]*$/.test(value)) return value;
  return value.includes("'") ? `"${value}"` : `'${value}'`;
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

async function writePrivate(path: string, text: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: 0o600 });
  await chmod(tmp, 0o600); // whatever the umask made of it
  await rename(tmp, path);
  return path;
}
