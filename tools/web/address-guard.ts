/**
 * SSRF protection for pages the model asks to fetch. A URL must be http(s)
 * without credentials, and every address its host resolves to must be a
 * public unicast address: private, loopback, link-local (cloud metadata at
 * 169.254.169.254), carrier-grade NAT, unique-local, multicast, reserved and
 * the IPv6 forms that embed an IPv4 address are all refused — unless the
 * operator allowed all private addresses or listed the range. The check
 * runs inside the socket's DNS lookup, so the address that is connected to
 * is the address that was checked (a DNS answer that changes between check
 * and connect cannot slip through), and it runs again for every redirect.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { WebError } from "./web-error.js";

/** Which addresses pages may be fetched from. */
export interface AddressPolicy {
  /** Every address is allowed (web.allow_private_urls). */
  readonly allowAll: boolean;
  allows(ip: string): boolean;
}

/** Whether `ip` is a public unicast address (IPv4-mapped IPv6 is judged as the IPv4 address it carries). */
export function isPublicAddress(ip: string): boolean {
  return ipaddr.isValid(ip) && ipaddr.process(ip).range() === "unicast";
}

/**
 * Public addresses, plus those inside `allowlist` (IPs or CIDRs such as
 * `10.1.0.0/16`); everything when `allowAll`. Throws for an entry that is
 * neither (the config schema checks the syntax first).
 */
export function addressPolicy(allowAll: boolean, allowlist: readonly string[] = []): AddressPolicy {
  const ranges = allowlist.map(parseRange);
  return {
    allowAll,
    allows(ip) {
      if (allowAll || isPublicAddress(ip)) return true;
      if (!ipaddr.isValid(ip)) return false;
      const addr = ipaddr.process(ip);
      return ranges.some(([net, bits]) => addr.kind() === net.kind() && addr.match([net, bits] as never));
    },
  };
}

function parseRange(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (entry.includes("/")) return ipaddr.parseCIDR(entry);
  const addr = ipaddr.process(entry);
  return [addr, addr.kind() === "ipv4" ? 32 : 128];
}

/** The host part of a URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Checks what can be checked without DNS: scheme, credentials, and a host
 * that is an IP literal. Throws WebError(HGW_ERR_WEB_URL_BLOCKED).
 */
export function checkUrlShape(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebError("HGW_ERR_WEB_FETCH", `not a valid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new WebError("HGW_ERR_WEB_URL_BLOCKED", `scheme ${url.protocol} (only http and https are fetched)`);
  if (url.username || url.password) throw new WebError("HGW_ERR_WEB_URL_BLOCKED", "the URL carries a user name or password");
  const host = bareHost(url);
  if (!host) throw new WebError("HGW_ERR_WEB_URL_BLOCKED", "the URL has no host");
  if (isIP(host) !== 0 && !policy.allows(host)) throw new WebError("HGW_ERR_WEB_URL_BLOCKED", `${host} is not a public address`);
  return url;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type Lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for net/tls connect options that refuses a host when any of its
 * addresses is not allowed. The refusal is a WebError, which the HTTP client
 * surfaces as the request's error (its cause).
 */
export function guardedLookup(policy: AddressPolicy): Lookup {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const blocked = list.find((a) => !policy.allows(a.address));
      if (blocked || list.length === 0) {
        const why = blocked ? `${hostname} resolves to ${blocked.address}, which is not a public address` : `${hostname} did not resolve`;
        return callback(new WebError("HGW_ERR_WEB_URL_BLOCKED", why), []);
      }
      if (options.all) return callback(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** Resolves `url`'s host now and throws unless every address is allowed (for backends that fetch on our behalf). */
export async function assertAllowedHost(url: URL, policy: AddressPolicy): Promise<void> {
  const host = bareHost(url);
  if (policy.allowAll || isIP(host) !== 0) return; // literals were judged by checkUrlShape
  await new Promise<void>((resolve, reject) => {
    guardedLookup(policy)(host, { all: true }, (err) =>
      err ? reject(err instanceof WebError ? err : new WebError("HGW_ERR_WEB_FETCH", `${host}: ${err.message}`)) : resolve(),
    );
  });
}
