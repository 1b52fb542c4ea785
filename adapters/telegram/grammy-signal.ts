/**
 * grammy's Node typings name the `abort-controller` package's AbortSignal;
 * at runtime it only needs `addEventListener`, which the global one has.
 */
export type GrammySignal = NonNullable<Parameters<import("grammy").Api["raw"]["getMe"]>[0]>;
export function gs(signal: AbortSignal): GrammySignal;
export function gs(signal: AbortSignal | undefined): GrammySignal | undefined;
export function gs(signal: AbortSignal | undefined): GrammySignal | undefined {
  return signal as unknown as GrammySignal | undefined;
}
