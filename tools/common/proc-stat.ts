/**
 * The text of /proc/<pid>/stat (Linux, proc(5)), read by field number. The
 * command name (field 2) sits in parentheses and may itself hold spaces and
 * parentheses, so the fields are counted from the last ")".
 */
export interface ProcStat {
  /** Field 2, without its parentheses. */
  readonly command: string;
  /** Field 3: R, S, D, Z, … */
  readonly state: string;
  /** Field `n` (3 or more, numbered as in proc(5)) as a number; NaN where the line has no such field. */
  field(n: number): number;
}

export function parseProcStat(text: string): ProcStat {
  const close = text.lastIndexOf(")");
  const rest = text.slice(close + 2).split(" ");
  return { command: text.slice(text.indexOf("(") + 1, close), state: rest[0] ?? "", field: (n) => Number(rest[n - 3]) };
}
