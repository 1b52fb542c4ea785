/**
 * Config values that are regular expressions are compiled once here, at
 * validation, so an invalid one is a config problem with its YAML path
 * (`config check` and `run` alike), never an error at first use.
 */
import * as z from "zod";

/** A regular-expression source that must compile with `flags` (the flags its user compiles it with). */
export const regexSource = (flags: string) =>
  z.string().superRefine((source, ctx) => {
    try {
      new RegExp(source, flags);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: `not a valid regular expression (flags "${flags}"): ${(err as Error).message}` });
    }
  });

/** Mention patterns match case-insensitively, by code point: the flags every adapter compiles them with. */
export const MENTION_PATTERN_FLAGS = "iu";
