/**
 * Walks a parsed script the way bash would run it and lists every command
 * invocation with its words expanded: variables assigned earlier in the
 * script are substituted, `$IFS` splits words, braces expand, `$(echo x)`
 * yields `x`. What cannot be known is kept as its source text and marked
 * dynamic so rules can fail closed.
 */

import type { Field, FunctionInfo, Invocation, PipeInfo, ResolvedRedirect, Subst, WalkResult } from "./invocation.js";
import type { Assign, Command, Redirect, Script, Word, WordPart } from "./shell-ast.js";
import { braceExpand, DEFAULT_IFS, type Item, replacePattern, splitFields, trimPattern } from "./shell-expand.js";
import { staticOutput } from "./shell-static.js";

/** Variable values known from the script itself; null = assigned but unknowable. */
export type Env = Map<string, string | null>;

const MAX_INVOCATIONS = 2000;
const MAX_LOOP_VALUES = 8;

/** Variables whose value is folded to a recognisable marker so path rules see through them. */
const FOLDED: Readonly<Record<string, string>> = { HOME: "~", HERMES_HOME: "~/.hermes" };

interface Expansion {
  items: Item[];
  substs: Subst[];
  procs: Subst[];
  dynamic: boolean;
  quotedEmpty: boolean;
}

interface StageRef {
  readonly pipe: PipeInfo;
  readonly stage: number;
  readonly outer: readonly StageRef[];
}

export function walkScript(script: Script): WalkResult {
  const walker = new Walker();
  walker.script(script, new Map(), null);
  return { invocations: walker.invocations, pipes: walker.pipes, functions: walker.functions, truncated: walker.truncated };
}

class Walker {
  readonly invocations: Invocation[] = [];
  readonly pipes: PipeInfo[] = [];
  readonly functions: FunctionInfo[] = [];
  truncated = false;

  script(script: Script, env: Env, outer: StageRef | null): PipeInfo[] {
    const created: PipeInfo[] = [];
    for (const p of script.pipelines) {
      const pipe: PipeInfo = { stages: p.cmds.map(() => []) };
      this.pipes.push(pipe);
      created.push(pipe);
      p.cmds.forEach((cmd, i) => {
        // Every stage of a multi-command pipeline runs in a subshell.
        const stageEnv = p.cmds.length > 1 ? new Map(env) : env;
        const ref: StageRef = { pipe, stage: i, outer: outer ? [outer, ...outer.outer] : [] };
        this.command(cmd, stageEnv, ref, p.background);
      });
    }
    return created;
  }

  private record(inv: Omit<Invocation, "pipe" | "stage" | "cwd">, ref: StageRef, env: Env): void {
    if (this.invocations.length >= MAX_INVOCATIONS) {
      this.truncated = true;
      return;
    }
    const full: Invocation = { ...inv, pipe: ref.pipe, stage: ref.stage, cwd: env.get("PWD") ?? null };
    this.invocations.push(full);
    for (const r of [ref, ...ref.outer]) r.pipe.stages[r.stage]?.push(full);
  }

  private command(cmd: Command, env: Env, ref: StageRef, background: boolean): void {
    switch (cmd.kind) {
      case "simple":
        return this.simple(cmd.words, cmd.assigns, cmd.redirs, env, ref, background);
      case "group":
        this.script(cmd.body, cmd.subshell ? new Map(env) : env, ref);
        return this.groupRedirects(cmd.redirs, env, ref, background);
      case "func":
        return this.func(cmd.name, cmd.body, env, ref);
      case "for":
        this.forLoop(cmd.name, cmd.items, cmd.body, env, ref);
        return this.groupRedirects(cmd.redirs, env, ref, background);
      case "compound":
        for (const w of cmd.words) this.expandWord(w, env);
        for (const list of cmd.lists) this.script(list, env, ref);
        return this.groupRedirects(cmd.redirs, env, ref, background);
    }
  }

  private groupRedirects(redirs: readonly Redirect[], env: Env, ref: StageRef, background: boolean): void {
    if (redirs.length === 0) return;
    this.record({ argv: [], group: true, fields: [], redirs: redirs.map((r) => this.redirect(r, env)), background, assigns: new Map() }, ref, env);
  }

  private func(name: string, body: Command, env: Env, ref: StageRef): void {
    const start = this.invocations.length;
    this.command(body, new Map(env), ref, false);
    this.functions.push({ name, invocations: this.invocations.slice(start) });
  }

  private forLoop(name: string, items: readonly Word[] | null, body: Script, env: Env, ref: StageRef): void {
    const fields = items ? items.flatMap((w) => this.expandWord(w, env)) : [];
    const known = items !== null && fields.every((f) => !f.dynamic);
    const values: (string | null)[] = known ? fields.map((f) => f.text) : [null];
    if (values.length > MAX_LOOP_VALUES) this.truncated = true;
    for (const v of values.slice(0, MAX_LOOP_VALUES)) {
      env.set(name, v);
      this.script(body, env, ref);
    }
    if (values.length === 0) this.script(body, env, ref);
  }

  private simple(words: readonly Word[], assigns: readonly Assign[], redirs: readonly Redirect[], env: Env, ref: StageRef, background: boolean): void {
    const prefix = new Map<string, string | null>();
    for (const a of assigns) prefix.set(a.name, this.assignValue(a, env));
    const fields = words.flatMap((w) => this.expandWord(w, env));
    const resolved = redirs.map((r) => this.redirect(r, env));
    // Assignments without a command change the shell's own variables; with one they only reach that command.
    if (fields.length === 0) for (const [k, v] of prefix) env.set(k, v);
    this.record({ argv: fields.map((f) => f.text), group: false, fields, redirs: resolved, background, assigns: prefix }, ref, env);
    this.trackBuiltins(fields, env);
  }

  private assignValue(a: Assign, env: Env): string | null {
    if (a.array) {
      for (const w of a.array) this.expandWord(w, env);
      return null;
    }
    if (!a.value) return "";
    const f = this.single(a.value, env);
    return f.dynamic ? null : f.text;
  }

  /** `export X=…`, `declare X=…`, `unset X`, `read X` change variables we track. */
  private trackBuiltins(fields: readonly Field[], env: Env): void {
    const name = fields[0]?.text;
    if (name === "export" || name === "declare" || name === "typeset" || name === "local" || name === "readonly") {
      for (const f of fields.slice(1)) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(f.text);
        if (m) env.set(m[1] as string, f.dynamic ? null : (m[2] as string));
      }
    } else if (name === "unset") {
      for (const f of fields.slice(1)) env.delete(f.text);
    } else if (name === "read" || name === "mapfile" || name === "readarray") {
      for (const f of fields.slice(1)) if (/^[A-Za-z_]\w*$/.test(f.text)) env.set(f.text, null);
    } else if (name === "cd" || name === "pushd") {
      env.set("PWD", changeDirectory(fields.slice(1), env.get("PWD") ?? null));
    }
  }

  private redirect(r: Redirect, env: Env): ResolvedRedirect {
    if (r.heredoc) {
      const body = this.single(r.heredoc.body, env);
      return { op: r.op, fd: r.fd, target: null, content: body.text, contentDynamic: body.dynamic };
    }
    const target = this.single(r.target, env);
    if (r.op === "<<<") return { op: r.op, fd: r.fd, target: null, content: target.text, contentDynamic: target.dynamic };
    return { op: r.op, fd: r.fd, target, content: null, contentDynamic: false };
  }

  /** A word that is not split or brace-expanded (redirect targets, assignment values, heredoc bodies). */
  single(word: Word, env: Env): Field {
    const exp = this.expand(word.parts, env, true);
    return toField(exp.items, exp);
  }

  expandWord(word: Word, env: Env): Field[] {
    const exp = this.expand(word.parts, env, false);
    const out: Field[] = [];
    for (const variant of braceExpand(exp.items)) {
      const fields = splitFields(variant, ifsOf(env));
      if (fields.length === 0 && exp.quotedEmpty) out.push(toField([], exp));
      for (const f of fields) out.push(toField(f, exp));
    }
    return out;
  }

  private expand(parts: readonly WordPart[], env: Env, quoted: boolean): Expansion {
    const exp: Expansion = { items: [], substs: [], procs: [], dynamic: false, quotedEmpty: false };
    this.expandInto(parts, env, quoted, exp);
    return exp;
  }

  private expandInto(parts: readonly WordPart[], env: Env, quoted: boolean, exp: Expansion): void {
    for (const p of parts) {
      if (p.t === "lit") pushText(exp, p.v, quoted ? 0 : 1);
      else if (p.t === "q") {
        pushText(exp, p.v, 0);
        exp.quotedEmpty = true;
      } else if (p.t === "dq") {
        exp.quotedEmpty = true;
        this.expandInto(p.parts, env, true, exp);
      } else if (p.t === "param") this.param(p, env, quoted, exp);
      else if (p.t === "cmd") this.commandSubst(p.body, p.backtick, p.raw, env, quoted, exp);
      else if (p.t === "arith") {
        this.expandInto(p.parts, env, true, { items: [], substs: exp.substs, procs: exp.procs, dynamic: false, quotedEmpty: false });
        pushUnknown(exp, p.raw);
      } else if (p.t === "proc") {
        const start = this.invocations.length;
        this.script(p.body, new Map(env), null);
        exp.procs.push({ backtick: false, invocations: this.invocations.slice(start), raw: p.raw });
        pushText(exp, "/dev/fd/63", 0);
      }
    }
  }

  private commandSubst(body: Script, backtick: boolean, raw: string, env: Env, quoted: boolean, exp: Expansion): void {
    const start = this.invocations.length;
    const pipes = this.script(body, new Map(env), null);
    exp.substs.push({ backtick, invocations: this.invocations.slice(start), raw });
    const only = pipes.length === 1 ? pipes[0] : undefined;
    const value = only && !body.pipelines[0]?.background ? staticOutput(only.stages) : null;
    if (value === null) pushUnknown(exp, raw);
    else pushText(exp, value.replace(/\n+$/, ""), quoted ? 0 : 2);
  }

  private param(p: Extract<WordPart, { t: "param" }>, env: Env, quoted: boolean, exp: Expansion): void {
    if (p.name === "IFS" && p.prefix === "") {
      // `${IFS}`, `$IFS`, `${IFS:0:1}`: a separator however it is sliced.
      pushText(exp, quoted ? " " : (ifsOf(env)[0] ?? " "), quoted ? 0 : 2);
      return;
    }
    const value = this.paramValue(p, env);
    if (value === null) pushUnknown(exp, p.raw);
    else pushText(exp, value, quoted ? 0 : 2);
  }

  private paramValue(p: Extract<WordPart, { t: "param" }>, env: Env): string | null {
    const own = FOLDED[p.name] ?? (env.has(p.name) ? (env.get(p.name) ?? null) : undefined);
    if (p.prefix === "#") return own === undefined || own === null ? null : String(own.length);
    if (p.prefix === "!") {
      const target = own ?? null;
      return target !== null && env.has(target) ? (env.get(target) ?? null) : null;
    }
    const arg = p.arg ? this.single(p.arg, env) : null;
    const argText = arg && !arg.dynamic ? arg.text : null;
    const v = own === undefined ? null : own;
    return applyOperator(p.op, v, own === undefined, argText, env, p.name);
  }
}

/** The separators in force: an `IFS=…` assignment earlier in the script, else bash's default. */
function ifsOf(env: Env): string {
  const ifs = env.get("IFS");
  return typeof ifs === "string" && ifs !== "" ? ifs : DEFAULT_IFS;
}

/**
 * Where `cd ARGS` lands, when that can be known from the script alone; a
 * relative directory from an unknown start stays relative (to the session's
 * working directory).
 */
function changeDirectory(args: readonly Field[], current: string | null): string | null {
  const target = args.find((f) => !f.text.startsWith("-") || f.text === "-");
  if (!target) return "~";
  if (target.dynamic || target.text === "-") return null;
  if (target.text.startsWith("/") || target.text.startsWith("~")) return target.text;
  return current === null ? target.text : `${current.replace(/\/+$/, "")}/${target.text}`;
}

/** The value of `${name<op>arg}`; `unset` means the script never assigned the variable. */
function applyOperator(op: string, v: string | null, unset: boolean, arg: string | null, env: Env, name: string): string | null {
  switch (op) {
    case "":
      return v;
    case ":-":
    case "-":
      // An unassigned variable most likely falls back to its default; guessing that is what lets rules see `${X:-rm}`.
      return v !== null && v !== "" ? v : unset || v === "" ? arg : null;
    case ":=":
    case "=": {
      const out = v !== null && v !== "" ? v : arg;
      if (unset) env.set(name, out);
      return out;
    }
    case ":+":
    case "+":
      return v === "" ? "" : arg;
    case "#":
    case "##":
    case "%":
    case "%%":
      return v === null || arg === null ? null : trimPattern(v, op, arg);
    case "/":
    case "//":
    case "/#":
    case "/%": {
      if (v === null || arg === null) return null;
      const slash = arg.indexOf("/");
      return replacePattern(v, op, slash < 0 ? arg : arg.slice(0, slash), slash < 0 ? "" : arg.slice(slash + 1));
    }
    case ":":
      return v === null || arg === null ? null : substring(v, arg);
    case "^^":
    case "^":
      return v === null ? null : op === "^^" ? v.toUpperCase() : v.charAt(0).toUpperCase() + v.slice(1);
    case ",,":
    case ",":
      return v === null ? null : op === ",," ? v.toLowerCase() : v.charAt(0).toLowerCase() + v.slice(1);
    default:
      return null;
  }
}

function substring(v: string, spec: string): string | null {
  const m = /^\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?$/.exec(spec);
  if (!m) return null;
  const off = Number(m[1]);
  const start = off < 0 ? Math.max(0, v.length + off) : off;
  if (m[2] === undefined) return v.slice(start);
  const len = Number(m[2]);
  return len < 0 ? v.slice(start, v.length + len) : v.slice(start, start + len);
}

function pushText(exp: Expansion, text: string, k: 0 | 1 | 2): void {
  for (const c of text) exp.items.push({ c, k, u: false });
}

function pushUnknown(exp: Expansion, raw: string): void {
  exp.dynamic = true;
  for (const c of raw) exp.items.push({ c, k: 0, u: true });
}

function toField(items: readonly Item[], exp: Expansion): Field {
  const unknown = items.filter((i) => i.u).length;
  return {
    text: items.map((i) => i.c).join(""),
    dynamic: unknown > 0,
    opaque: items.length > 0 && unknown === items.length,
    quoted: items.some((i) => i.k === 0 && !i.u),
    substs: exp.substs,
    procs: exp.procs,
  };
}
