/**
 * Bearer-key check for the HTTP API. Both sides are hashed first so the
 * comparison takes the same time whatever the length or content of the guess.
 */
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (s: string) => createHash("sha256").update(s).digest();

export function bearerMatches(header: string | undefined, key: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? "");
  const presented = m?.[1]?.trim() ?? "";
  // Compare even when nothing was presented, so timing reveals nothing either way.
  return timingSafeEqual(digest(presented), digest(key)) && presented.length > 0;
}
