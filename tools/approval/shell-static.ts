/**
 * Computes, without running anything, the output of pipelines built only
 * from `echo`/`printf`/here-strings and simple decoders (base64 -d, rev,
 * xxd -r -p, tr). That is how `$(echo rm)`, `echo cm0gLXJmIC8= | base64 -d | sh`
 * and friends are seen through.
 */
import type { Invocation } from "./invocation.js";
import { decodeAnsiC } from "./shell-words.js";

const MAX_OUTPUT = 64 * 1024;

function base(arg: string | undefined): string {
  return (arg ?? "").split("/").pop()?.toLowerCase() ?? "";
}

/** The literal stdout of a pipeline, or null when it depends on anything we cannot know. */
export function staticOutput(stages: readonly (readonly Invocation[])[]): string | null {
  let data: string | null = null;
  for (let i = 0; i < stages.length; i++) {
    const stage = stages[i] ?? [];
    if (stage.length !== 1) return null;
    const inv = stage[0] as Invocation;
    if (inv.fields.some((f) => f.dynamic)) return null;
    data = i === 0 ? sourceOutput(inv) : transform(inv, data ?? "");
    if (data === null || data.length > MAX_OUTPUT) return null;
  }
  return data;
}

/** First stage: a producer of literal text. */
function sourceOutput(inv: Invocation): string | null {
  const input = stdinContent(inv);
  const name = base(inv.argv[0]);
  if (name === "echo") return echo(inv.argv.slice(1));
  if (name === "printf") return printf(inv.argv.slice(1));
  // `$(which rm)` / `$(command -v rm)` resolve to the command's path; its name is what matters.
  if ((name === "which" || (name === "command" && /^-[vV]$/.test(inv.argv[1] ?? "")) || (name === "type" && inv.argv[1] === "-p")) && inv.argv.length >= 2) {
    const target = inv.argv.slice(1).find((a) => !a.startsWith("-"));
    return target === undefined ? null : `${target}\n`;
  }
  if (input === null) return null;
  return transform(inv, input);
}

/** Here-document or here-string text feeding this invocation, if any. */
export function stdinContent(inv: Invocation): string | null {
  for (const r of inv.redirs) {
    if ((r.op === "<<" || r.op === "<<-") && !r.contentDynamic) return r.content;
    if (r.op === "<<<" && !r.contentDynamic && r.content !== null) return `${r.content}\n`;
  }
  return null;
}

/** Later stages: a filter we can evaluate. */
function transform(inv: Invocation, input: string): string | null {
  const args = inv.argv.slice(1);
  const name = base(inv.argv[0]);
  if (inv.redirs.some((r) => r.op !== "<<" && r.op !== "<<-" && r.op !== "<<<" && !(r.target?.text === "/dev/null"))) return null;
  if (name === "cat" && args.length === 0) return input;
  if ((name === "base64" || name === "base32") && args.some((a) => /^-[a-zA-Z]*[dD]|^--decode$/.test(a))) {
    return name === "base64" ? Buffer.from(input.replace(/\s+/g, ""), "base64").toString("latin1") : null;
  }
  if (name === "rev")
    return input
      .split("\n")
      .map((l) => [...l].reverse().join(""))
      .join("\n");
  if (name === "xxd" && args.includes("-r") && args.includes("-p")) {
    return Buffer.from(input.replace(/[^0-9a-fA-F]/g, ""), "hex").toString("latin1");
  }
  if (name === "tr" && args.length === 2) return translate(input, args[0] as string, args[1] as string);
  return null;
}

function echo(args: readonly string[]): string {
  let newline = true;
  let escapes = false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i] as string;
    if (!/^-[neE]+$/.test(a)) break;
    if (a.includes("n")) newline = false;
    if (a.includes("e")) escapes = true;
    if (a.includes("E")) escapes = false;
  }
  const text = args.slice(i).join(" ");
  return (escapes ? decodeAnsiC(text) : text) + (newline ? "\n" : "");
}

function printf(args: readonly string[]): string | null {
  const [format, ...rest] = args[0] === "--" ? args.slice(1) : args;
  if (format === undefined) return null;
  let out = "";
  let i = 0;
  do {
    let ok = true;
    out += decodeAnsiC(format).replace(/%([%sbcdi])/g, (_m, spec: string) => {
      if (spec === "%") return "%";
      const arg = rest[i++] ?? "";
      if (spec === "b") return decodeAnsiC(arg);
      if (spec === "c") return arg.slice(0, 1);
      if (spec === "d" || spec === "i") return String(Number.parseInt(arg, 10) || 0);
      return arg;
    });
    if (/%[^%sbcdi]/.test(format)) ok = false;
    if (!ok) return null;
  } while (i < rest.length && /%[sbcdi]/.test(format));
  return out;
}

function expandSet(set: string): string | null {
  let out = "";
  for (let i = 0; i < set.length; i++) {
    const c = set[i] as string;
    const to = set[i + 2];
    if (set[i + 1] === "-" && to !== undefined) {
      const a = c.charCodeAt(0);
      const b = to.charCodeAt(0);
      if (b < a || b - a > 256) return null;
      for (let code = a; code <= b; code++) out += String.fromCharCode(code);
      i += 2;
    } else if (c === "[" || c === "\\") return null;
    else out += c;
  }
  return out;
}

/** `tr SET1 SET2` with plain characters and ranges (enough for rot13 and friends). */
function translate(input: string, from: string, to: string): string | null {
  const a = expandSet(from);
  const b = expandSet(to);
  if (a === null || b === null || b.length === 0) return null;
  const map = new Map<string, string>();
  for (let i = 0; i < a.length; i++) map.set(a[i] as string, b[Math.min(i, b.length - 1)] as string);
  return [...input].map((c) => map.get(c) ?? c).join("");
}
