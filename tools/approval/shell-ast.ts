/**
 * The syntax tree our shell parser produces. It models exactly what the
 * dangerous-command guard needs — commands, words with their quoting,
 * expansions, redirections and here-documents — not the whole of bash.
 */

/** One piece of a word, before expansion. */
export type WordPart =
  /** Unquoted literal text (subject to brace expansion, globbing, tilde). */
  | { readonly t: "lit"; readonly v: string }
  /** Quoted literal text: single quotes, $'…' (already decoded), backslash-escaped characters. */
  | { readonly t: "q"; readonly v: string }
  /** A double-quoted region. */
  | { readonly t: "dq"; readonly parts: readonly WordPart[] }
  /** `$name` or `${…}`; `op` is the operator text (":-", "#", "/", …) and `arg` what follows it. */
  | { readonly t: "param"; readonly name: string; readonly prefix: "" | "#" | "!"; readonly op: string; readonly arg: Word | null; readonly raw: string }
  /** `$(…)` or a backtick substitution. */
  | { readonly t: "cmd"; readonly body: Script; readonly backtick: boolean; readonly raw: string }
  /** `$((…))`; its parts may hold command substitutions, which bash runs. */
  | { readonly t: "arith"; readonly parts: readonly WordPart[]; readonly raw: string }
  /** `<(…)` or `>(…)`. */
  | { readonly t: "proc"; readonly dir: "<" | ">"; readonly body: Script; readonly raw: string };

export interface Word {
  readonly parts: readonly WordPart[];
  /** The source text of the word, for messages and fallbacks. */
  readonly raw: string;
}

export interface Heredoc {
  /** The body; a single quoted part when the delimiter was quoted (no expansion). */
  body: Word;
  readonly quoted: boolean;
}

export interface Redirect {
  readonly fd: string | null;
  /** One of < > >> >| <> <& >& &> &>> << <<- <<<. */
  readonly op: string;
  readonly target: Word;
  /** Filled when the here-document body is read (after the next newline). */
  readonly heredoc: Heredoc | null;
}

export interface Assign {
  readonly name: string;
  readonly value: Word | null;
  readonly array: readonly Word[] | null;
}

export interface SimpleCommand {
  readonly kind: "simple";
  readonly assigns: readonly Assign[];
  readonly words: readonly Word[];
  readonly redirs: readonly Redirect[];
}

/** `( … )` (subshell) or `{ …; }`. */
export interface GroupCommand {
  readonly kind: "group";
  readonly subshell: boolean;
  readonly body: Script;
  readonly redirs: readonly Redirect[];
}

export interface FuncCommand {
  readonly kind: "func";
  readonly name: string;
  readonly body: Command;
}

export interface ForCommand {
  readonly kind: "for";
  readonly name: string;
  /** Null when the loop iterates "$@" (no `in` list). */
  readonly items: readonly Word[] | null;
  readonly body: Script;
  readonly redirs: readonly Redirect[];
}

/** if/while/until/case/[[ ]]/(( )): every list runs (we cannot know which branch), words are expanded. */
export interface CompoundCommand {
  readonly kind: "compound";
  readonly keyword: string;
  readonly lists: readonly Script[];
  readonly words: readonly Word[];
  readonly redirs: readonly Redirect[];
}

export type Command = SimpleCommand | GroupCommand | FuncCommand | ForCommand | CompoundCommand;

export interface Pipeline {
  readonly cmds: readonly Command[];
  /** Followed by `&`. */
  readonly background: boolean;
}

/** A command list; `&&`, `||`, `;` and newlines are all flattened — every pipeline may run. */
export interface Script {
  readonly pipelines: readonly Pipeline[];
}

export interface ParseResult {
  readonly script: Script;
  /** Problems found while parsing; the parser never throws and recovers as bash would where it can. */
  readonly errors: readonly string[];
}
