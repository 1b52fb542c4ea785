/**
 * Building blocks the sections of the configuration schema share.
 */
import * as z from "zod";

/** A duration in seconds, never negative, with its default. */
export const seconds = (d: number) => z.number().nonnegative().default(d);
/** Platform ids (users, chats, roles): YAML numbers and strings alike, kept as strings. */
export const idList = () => z.array(z.union([z.string(), z.number()]).transform(String)).default([]);

/** The frozen shape of a parsed section: nothing in the configuration is mutable after boot. */
export type DeepReadonly<T> = T extends (infer U)[] ? readonly DeepReadonly<U>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;
