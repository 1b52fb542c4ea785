/** One line of the daemon benchmark's table: a figure, what was measured, its target and the verdict. */
export interface Row {
  readonly figure: string;
  readonly measured: string;
  readonly target?: string;
  /** true = meets the target, false = misses it, undefined = no target. */
  readonly ok?: boolean;
}
