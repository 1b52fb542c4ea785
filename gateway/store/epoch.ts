/**
 * Time at the store's edge. The store's API speaks epoch milliseconds, like
 * every other part of the gateway; its timestamp columns hold epoch seconds
 * (REAL), as Hermes Agent's state.db does, so a database file keeps that
 * format (and a migration that rewrote every row is not needed). Values cross
 * between the two units here, where a record meets its row, and nowhere else.
 */

/** Epoch ms → the column's epoch seconds. */
export function toColumn(ms: number): number {
  return ms / 1000;
}

/** A column's epoch seconds → epoch ms (whole: what toColumn wrote comes back exactly). */
export function fromColumn(seconds: number): number {
  return Math.round(seconds * 1000);
}

export function toColumnOrNull(ms: number | null): number | null {
  return ms === null ? null : toColumn(ms);
}

export function fromColumnOrNull(seconds: number | null): number | null {
  return seconds === null ? null : fromColumn(seconds);
}
