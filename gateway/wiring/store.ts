/**
 * The store of a HERMES_HOME (`state.db` in it), opened the one way every
 * entry opens it: the daemon's and chat's engine, and the commands that read
 * or change it (sessions, doctor, cron, pairing).
 */
import { join } from "node:path";
import type { Logger } from "pino";
import { systemClock } from "../../config/timing/index.js";
import { createPairing, type Pairing } from "../runtime/index.js";
import { openStore, type Store } from "../store/index.js";
import { runtimeStoreOver } from "./runtime-store.js";

export function stateDbPath(home: string): string {
  return join(home, "state.db");
}

/** Opens (creating and migrating as needed) the store of `home`; throws what openStore throws. */
export function openHomeStore(home: string, logger?: Logger): Store {
  return openStore(stateDbPath(home), logger ? { logger } : {});
}

/** DM pairing over an open store, as the runtime does it (the `pairing` command approves and revokes with it). */
export function pairingOver(store: Store): Pairing {
  return createPairing(runtimeStoreOver(store), systemClock);
}
