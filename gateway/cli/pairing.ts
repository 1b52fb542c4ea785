/** `hermes-gateway pairing approve PLATFORM CODE | list [PLATFORM] | revoke PLATFORM USER_ID`. */

import { openHomeStore, pairingOver } from "../wiring/store.js";
import { type CliIo, resolveHome } from "./context.js";
import { EXIT } from "./exit-codes.js";
import { type CliResult, pairingApprove, pairingList, pairingRevoke } from "./pairing-cli.js";

const USAGE = "usage: hermes-gateway pairing approve PLATFORM CODE | pairing list [PLATFORM] | pairing revoke PLATFORM USER_ID";

export async function pairingCommand(args: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const [sub, a, b] = args;
  const valid = (sub === "approve" && a && b) || sub === "list" || (sub === "revoke" && a && b);
  if (!valid) {
    io.err(USAGE);
    return EXIT.USAGE;
  }
  const store = openHomeStore(resolveHome(env));
  try {
    const pairing = pairingOver(store);
    let result: CliResult;
    if (sub === "approve") result = pairingApprove(pairing, a as string, b as string);
    else if (sub === "revoke") result = pairingRevoke(pairing, a as string, b as string);
    else result = pairingList(pairing, a);
    (result.exitCode === 0 ? io.out : io.err)(result.output);
    return result.exitCode === 0 ? EXIT.OK : EXIT.FAILURE;
  } finally {
    store.close();
  }
}
