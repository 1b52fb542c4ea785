/**
 * A second opinion on syntax from mvdan/sh (the `sh-syntax` WASM build).
 * Its JSON tree drops command node types, so it cannot drive the analysis,
 * but it is a faithful bash parser: when it rejects input that our lenient
 * parser accepted, the two disagree about what would run — fail closed.
 */
import { LangVariant, parse } from "sh-syntax";

export interface SyntaxVerdict {
  readonly ok: boolean;
  readonly message?: string;
}

export async function validateSyntax(source: string): Promise<SyntaxVerdict> {
  try {
    await parse(source, { variant: LangVariant.LangBash, keepComments: false });
    return { ok: true };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}
