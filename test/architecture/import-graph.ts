/**
 * The import graph of a set of source files, read as text: every static
 * `import`/`export … from` and every `import("…")` with a literal specifier,
 * each marked type-only or not, resolved to the file it names. The set is a
 * map of repository-relative paths (with `/`) to contents, so the same
 * checks run on the real tree and on a synthetic one.
 */
import { posix } from "node:path";

export type SourceSet = ReadonlyMap<string, string>;

export interface ImportRef {
  /** The importing file (repository-relative). */
  readonly from: string;
  readonly spec: string;
  /** `import type …`, `export type … from`, or `import { type A, type B }`: erased by the compiler. */
  readonly typeOnly: boolean;
  /** The file the specifier names, when it is in the set; null for packages and files outside it. */
  readonly to: string | null;
}

// The clause before `from` holds no quote, `;`, `=` or parenthesis: so an
// `export const …` or `export interface … { … }` is never read as the start of
// the import that follows it.
const STATIC_RE = /^\s*(import|export)\s+(type\s+)?(?:([^'";=()]*?)\s*from\s+)?["']([^"']+)["']/gm;
const DYNAMIC_RE = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** `{ type A, type B as C }`: every named binding is type-only (and there is no default binding). */
function allNamedTypeOnly(clause: string): boolean {
  const named = /^\{([^}]*)\}$/.exec(clause.trim());
  if (!named) return false;
  const parts = (named[1] ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  return parts.length > 0 && parts.every((p) => p.startsWith("type "));
}

/** The specifiers `text` imports, unresolved. */
export function importsOf(from: string, text: string): Omit<ImportRef, "to">[] {
  const refs: Omit<ImportRef, "to">[] = [];
  for (const m of text.matchAll(STATIC_RE)) {
    const typeOnly = Boolean(m[2]) || (m[1] === "import" && allNamedTypeOnly(m[3] ?? ""));
    refs.push({ from, spec: m[4] as string, typeOnly });
  }
  for (const m of text.matchAll(DYNAMIC_RE)) refs.push({ from, spec: m[1] as string, typeOnly: false });
  return refs;
}

/** The file of the set a relative specifier names: as written, or its TypeScript source (`.js` → `.ts`), or its `index.ts`. */
export function resolveSpec(from: string, spec: string, files: SourceSet): string | null {
  if (!spec.startsWith(".")) return null;
  const target = posix.normalize(posix.join(posix.dirname(from), spec));
  const candidates = [target, target.replace(/\.js$/, ".ts"), target.replace(/\.mjs$/, ".mts"), `${target}.ts`, posix.join(target, "index.ts")];
  return candidates.find((c) => files.has(c)) ?? null;
}

export interface ImportGraph {
  readonly files: SourceSet;
  /** Every import of every file, resolved where it can be. */
  readonly refs: readonly ImportRef[];
  /** file → the files of the set it imports (type-only imports included). */
  readonly edges: ReadonlyMap<string, ReadonlySet<string>>;
}

export function buildGraph(files: SourceSet): ImportGraph {
  const refs: ImportRef[] = [];
  const edges = new Map<string, Set<string>>();
  for (const [file, text] of files) {
    const out = new Set<string>();
    edges.set(file, out);
    for (const r of importsOf(file, text)) {
      const to = resolveSpec(file, r.spec, files);
      refs.push({ ...r, to });
      if (to) out.add(to);
    }
  }
  return { files, refs, edges };
}

/**
 * The import cycles of the graph: one per strongly connected component of more
 * than one file (or a file importing itself), each given as a closed path
 * through it (`a → b → a`), so the message shows which imports to cut.
 */
export function findCycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;

  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges.get(v)?.has(v)) components.push(component);
  };

  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((c) => closedPath(c, edges));
}

/** A shortest path from the component's first file (by name) back to itself, through the component only. */
function closedPath(component: readonly string[], edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const inside = new Set(component);
  const start = [...component].sort()[0] as string;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i] as string;
    for (const w of [...(edges.get(v) ?? [])].sort()) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(previous.get(path[0] as string) as string);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
