/**
 * The read side of the file policy: which files may leave the machine whole,
 * attached to a chat message (a `MEDIA:` tag, a markdown image of a local
 * file, a file sent with send_message). Text the agent reads is masked
 * (secret-shaped strings, private-key blocks); a file sent as an attachment
 * cannot be, so what holds credentials is refused outright: the user's
 * credential and shell start-up files, the files that govern the gateway
 * (its config, `.env`, credential pool, database), `.env` files anywhere,
 * private keys by their usual names, and the system's configuration and
 * kernel interfaces. Paths are compared as the guard compares them (`~`,
 * HERMES_HOME and the configured home folded); callers pass the path the
 * agent named and the one it resolves to through symlinks.
 */
import { posix } from "node:path";
import { HERMES_FILES, isAnchored, normalizePath, SENSITIVE_HOME } from "./guard-paths.js";
import type { GuardOptions } from "./guard-types.js";

/** Where the system keeps configuration, kernel state, devices and mounted secrets. */
const SYSTEM = /^\/(?:private\/)?(?:etc|proc|sys|dev|boot)(?:\/|$)|^\/(?:var\/)?run\/secrets(?:\/|$)/;

/** Credentials kept under `~` beyond the guard's list of sensitive files. */
const MORE_CREDENTIALS = /^~\/(?:\.aws|\.kube|\.azure|\.config\/gcloud|\.password-store|\.local\/share\/keyrings)(?:\/|$)/;

/** Private keys and key stores by their usual names (public halves are fine). */
const KEY_FILE = /^(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|.*\.(?:pem|key|p12|pfx|jks|kdbx|ppk))$/i;

/**
 * Why the file at `raw` may not be sent out of the machine, or null when it may. `raw` should be absolute (a
 * relative path is judged by its name only).
 */
export function exportRefusal(raw: string, opts: GuardOptions): string | null {
  // `..` goes first, so a path that climbs out of one directory into the home is still seen as under it.
  const p = normalizePath(raw.startsWith("/") ? posix.normalize(raw) : raw, opts);
  const name = p.split("/").pop() ?? "";
  if (HERMES_FILES.test(p) || (opts.configPath !== undefined && p === normalizePath(opts.configPath, opts)))
    return "it is one of the files that govern the gateway";
  if (SENSITIVE_HOME.test(p) || MORE_CREDENTIALS.test(p)) return "it holds credentials or shell start-up settings";
  if (name === ".env" || /^\.env\.[A-Za-z0-9_.-]+$/.test(name)) return "`.env` files hold secrets";
  if (KEY_FILE.test(name)) return "it looks like a private key";
  if (isAnchored(p) && SYSTEM.test(p)) return "it is system configuration or kernel state";
  return null;
}
