/**
 * Where the daemon's main thread spends its time, from a V8 CPU profile
 * (`node --cpu-prof`, written when the daemon exits): self time by package or
 * source folder, and the longest stretches without an idle sample (a long
 * task, or under load many tasks back to back) with what ran in them.
 */
import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { SourceMap } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Row } from "./report-row.js";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Our source folders (a file directly in a layer by its name), as in the repository. */
const OURS = /^((?:gateway|adapters|agent|tools|config)\/[^/]+?)(?:\.ts)?(?:\/|$)/;

const maps = new Map<string, SourceMap | null>();

/**
 * Where a frame's code was written: the daemon runs a bundle (dist/gateway/*.js), whose source maps lead each
 * position back to its TypeScript file or npm package. A frame outside the bundle keeps its own URL.
 */
function source(frame: ProfileNode["callFrame"]): string {
  if (!frame.url.startsWith("file:")) return frame.url;
  let map = maps.get(frame.url);
  if (map === undefined) {
    const file = `${fileURLToPath(frame.url)}.map`;
    map = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, "utf8")) as ConstructorParameters<typeof SourceMap>[0]) : null;
    maps.set(frame.url, map);
  }
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string } | undefined;
  return entry?.originalSource ? new URL(entry.originalSource, frame.url).href : frame.url; // sources are relative to the map
}

function ours(frame: ProfileNode["callFrame"]): string | null {
  const url = source(frame);
  return url.startsWith("file:") ? (OURS.exec(relative(ROOT, fileURLToPath(url)))?.[1] ?? null) : null;
}

/** The area a frame belongs to: an npm package, one of our folders, a Node internal, or V8/native. */
function area(frame: ProfileNode["callFrame"]): string {
  const url = source(frame);
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm ${pkg[1]}`;
  const mine = ours(frame);
  if (mine) return mine;
  if (url.startsWith("node:")) return url.replace(/^node:internal\/(deps\/)?/, "node:").split("/")[0] ?? url;
  return frame.functionName || "(native)";
}

const label = (f: ProfileNode["callFrame"]) => `${f.functionName || "(anon)"} ${ours(f) ?? area(f)}`;

export async function readProfile(dir: string): Promise<CpuProfile> {
  const file = (await readdir(dir)).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no .cpuprofile in ${dir} (did the daemon exit cleanly?)`);
  return JSON.parse(await readFile(join(dir, file), "utf8")) as CpuProfile;
}

/** `skipMs`: leave the first part of the profile (the daemon's start) out of the stretch list. */
export function profileRows(p: CpuProfile, blockMs = 20, skipMs = 0): Row[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const { total, busy, areas } = windowSelf({ name: "", profile: p, fromMs: 0, toMs: Infinity });
  const rows: Row[] = [
    { figure: "main thread busy (of the profiled time)", measured: `${((busy / total) * 100).toFixed(0)} % of ${(total / 1000).toFixed(0)} s` },
  ];
  for (const [k, v] of top(areas, 12)) rows.push({ figure: `  self time: ${k}`, measured: `${((v / busy) * 100).toFixed(1)} % of busy` });
  rows.push(...blockRows(p, byId, parent, blockMs, skipMs));
  return rows;
}

/** One profile and the stretch of it to compare (ms since the profile began). */
export interface ProfileWindow {
  readonly name: string;
  readonly profile: CpuProfile;
  readonly fromMs: number;
  readonly toMs: number;
}

/** Sampled time in the window (idle included), busy time, and self time by area and by function. */
function windowSelf(w: ProfileWindow): { total: number; busy: number; areas: Map<string, number>; frames: Map<string, number> } {
  const byId = new Map(w.profile.nodes.map((n) => [n.id, n]));
  const areas = new Map<string, number>();
  const frames = new Map<string, number>();
  let total = 0;
  let busy = 0;
  let now = 0;
  for (let i = 0; i < w.profile.samples.length; i++) {
    const node = byId.get(w.profile.samples[i] ?? -1);
    const dt = (w.profile.timeDeltas[i] ?? 0) / 1000;
    now += dt;
    if (now < w.fromMs || now >= w.toMs || !node) continue;
    total += dt;
    if (node.callFrame.functionName === "(idle)") continue;
    busy += dt;
    add(areas, area(node.callFrame), dt);
    add(frames, label(node.callFrame), dt);
  }
  return { total, busy, areas, frames };
}

/**
 * Two runs' main threads over their measured loads, side by side: busy time,
 * then the areas and functions whose self time differs most (a − b), which
 * is where the extra CPU of run a went.
 */
export function compareRows(a: ProfileWindow, b: ProfileWindow, n = 10): Row[] {
  const x = windowSelf(a);
  const y = windowSelf(b);
  const ms = (v: number) => `${v >= 0 ? "+" : ""}${v.toFixed(0)} ms`;
  const rows: Row[] = [
    {
      figure: `main thread busy during the load: ${a.name} / ${b.name}`,
      measured: `${x.busy.toFixed(0)} ms / ${y.busy.toFixed(0)} ms (${ms(x.busy - y.busy)})`,
    },
  ];
  const diff = (p: Map<string, number>, q: Map<string, number>) =>
    [...new Set([...p.keys(), ...q.keys()])]
      .map((k): [string, number, number] => [k, p.get(k) ?? 0, q.get(k) ?? 0])
      .sort((u, v) => Math.abs(v[1] - v[2]) - Math.abs(u[1] - u[2]))
      .slice(0, n);
  for (const [k, p, q] of diff(x.areas, y.areas)) rows.push({ figure: `  area ${k}`, measured: `${p.toFixed(0)} / ${q.toFixed(0)} ms (${ms(p - q)})` });
  for (const [k, p, q] of diff(x.frames, y.frames)) rows.push({ figure: `  function ${k}`, measured: `${p.toFixed(0)} / ${q.toFixed(0)} ms (${ms(p - q)})` });
  return rows;
}

/** Stretches of consecutive non-idle samples of at least `blockMs`, each with its top self frames and the function of ours they mostly ran under. */
function blockRows(p: CpuProfile, byId: Map<number, ProfileNode>, parent: Map<number, number>, blockMs: number, skipMs: number): Row[] {
  const blocks: Array<{ at: number; ms: number; self: Map<string, number>; ours: Map<string, number> }> = [];
  let cur: (typeof blocks)[number] | null = null;
  let now = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i] ?? -1);
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    now += dt;
    if (!node || node.callFrame.functionName === "(idle)") {
      if (cur && cur.ms >= blockMs && cur.at >= skipMs) blocks.push(cur);
      cur = null;
      continue;
    }
    cur ??= { at: now, ms: 0, self: new Map(), ours: new Map() };
    cur.ms += dt;
    add(cur.self, label(node.callFrame), dt);
    const ours = innermostOurs(node.id, byId, parent);
    if (ours) add(cur.ours, ours, dt);
  }
  const after = skipMs > 0 ? ` after the first ${(skipMs / 1000).toFixed(0)} s` : "";
  const rows: Row[] = [
    {
      figure: `stretches ≥ ${blockMs} ms without an idle sample${after} (one long task, or tasks back to back under load)`,
      measured: `${blocks.length}, ${blocks.reduce((n, b) => n + b.ms, 0).toFixed(0)} ms in all`,
    },
  ];
  for (const b of [...blocks].sort((x, y) => y.ms - x.ms).slice(0, 8)) {
    const self = top(b.self, 4)
      .map(([k, v]) => `${k.split(" ")[0]} ${v.toFixed(0)}`)
      .join(", ");
    const ours = top(b.ours, 1)[0]?.[0] ?? "-";
    rows.push({ figure: `  ${b.ms.toFixed(0)} ms at ${(b.at / 1000).toFixed(1)} s: ${self}`, measured: `in ${ours}` });
  }
  return rows;
}

function innermostOurs(id: number, byId: Map<number, ProfileNode>, parent: Map<number, number>): string | null {
  for (let j: number | undefined = id; j !== undefined; j = parent.get(j)) {
    const f = byId.get(j)?.callFrame;
    if (f && ours(f)) return label(f);
  }
  return null;
}

function add(m: Map<string, number>, k: string, v: number): void {
  m.set(k, (m.get(k) ?? 0) + v);
}

function top(m: Map<string, number>, n: number): Array<[string, number]> {
  return [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
}
