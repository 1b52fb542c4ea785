/**
 * What the guard's rules look at: every command the shell source would run,
 * with its arguments expanded as far as can be known statically.
 */

export interface Subst {
  readonly backtick: boolean;
  /** Every command the substitution body runs. */
  readonly invocations: readonly Invocation[];
  readonly raw: string;
}

/** One expanded argument (a word can expand to several fields). */
export interface Field {
  readonly text: string;
  /** Contains an expansion whose value could not be determined (its source text stands in). */
  readonly dynamic: boolean;
  /** Made only of undeterminable expansions — no literal character of its own. */
  readonly opaque: boolean;
  /** Contains quoted or escaped characters. */
  readonly quoted: boolean;
  readonly substs: readonly Subst[];
  readonly procs: readonly Subst[];
}

export interface ResolvedRedirect {
  readonly op: string;
  readonly fd: string | null;
  /** The file (or fd) written/read; null for here-documents. */
  readonly target: Field | null;
  /** Here-document body or here-string text. */
  readonly content: string | null;
  readonly contentDynamic: boolean;
}

/** A pipeline; stage i holds every invocation that runs inside that stage (nested ones included). */
export interface PipeInfo {
  readonly stages: Invocation[][];
}

export interface Invocation {
  /** Expanded argv; empty for a bare redirection or for a group's own redirections. */
  readonly argv: readonly string[];
  /** The redirections of a `{ …; }`, `( … )` or compound command, whose body writes the output. */
  readonly group: boolean;
  readonly fields: readonly Field[];
  readonly redirs: readonly ResolvedRedirect[];
  /** The innermost pipeline this invocation is a stage of. */
  readonly pipe: PipeInfo;
  readonly stage: number;
  readonly background: boolean;
  /** Prefix assignments (`FOO=1 cmd`). */
  readonly assigns: ReadonlyMap<string, string | null>;
  /** Working directory set by an earlier `cd` in the same script, when known (null: the session's). */
  readonly cwd: string | null;
}

export interface FunctionInfo {
  readonly name: string;
  readonly invocations: readonly Invocation[];
}

export interface WalkResult {
  readonly invocations: readonly Invocation[];
  readonly pipes: readonly PipeInfo[];
  readonly functions: readonly FunctionInfo[];
  /** The walk stopped early (too many commands or loop iterations); the caller should fail closed. */
  readonly truncated: boolean;
}
