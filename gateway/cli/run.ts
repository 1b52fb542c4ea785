/**
 * `hermes-gateway run`: start the daemon and stay up until a signal.
 * SIGTERM/SIGINT stop gracefully (exit 0); a second signal forces exit 1;
 * SIGUSR1 stops gracefully and exits 75 so a supervisor restarts us.
 */
import { HermesError } from "../../config/errors.js";
import { collectSecrets } from "../../config/index.js";
import { startDaemon } from "../daemon.js";
import { createLogger } from "../log.js";
import { ensureHome, loadOrReport, packageVersion, resolveHome, type CliIo } from "./context.js";
import { EXIT } from "./exit-codes.js";
import type { ParsedCli } from "./main.js";

export async function runCommand(cli: ParsedCli, env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const home = resolveHome(env);
  await ensureHome(home);
  const config = await loadOrReport(home, cli.values.config, env, io);
  if (!config) return EXIT.CONFIG;
  const logger = createLogger({ level: config.logging.level, format: config.logging.format, secrets: collectSecrets(config), isTty: process.stdout.isTTY === true });

  let daemon;
  // /restart takes the same path as SIGUSR1, once the signal handlers below are in place.
  let restart: (() => void) | null = null;
  try {
    daemon = await startDaemon({ config, logger, version: await packageVersion(), requestRestart: () => restart?.() });
  } catch (err) {
    logger.flush();
    // A config problem found only when a part starts is reported like one found at load: exit 78, no stack.
    if (err instanceof HermesError && err.code.startsWith("HGW_ERR_CONFIG_")) {
      io.err(`${err.code}: ${err.message}`);
      return EXIT.CONFIG;
    }
    logger.fatal({ err, code: err instanceof HermesError ? err.code : "unexpected" }, "startup failed");
    logger.flush();
    return EXIT.FAILURE;
  }

  return new Promise<number>((resolveExit) => {
    let stopping = false;
    const stop = (exitCode: number, why: string, reason: "shutdown" | "restart" = "shutdown") => {
      if (stopping) {
        logger.warn({ why }, "second signal: exiting now");
        logger.flush();
        process.exit(EXIT.FAILURE);
      }
      stopping = true;
      logger.info({ why }, "stopping");
      daemon.stop(reason).then(
        () => finish(exitCode),
        (err: unknown) => {
          logger.error({ err }, "stop failed");
          finish(EXIT.FAILURE);
        },
      );
    };
    const finish = (exitCode: number) => {
      for (const [sig, fn] of handlers) process.off(sig, fn);
      logger.info({ exitCode }, "stopped");
      logger.flush();
      resolveExit(exitCode);
    };
    const handlers: [NodeJS.Signals | "exit" | "unhandledRejection" | "uncaughtException", (...a: unknown[]) => void][] = [
      ["SIGTERM", () => stop(EXIT.OK, "SIGTERM")],
      ["SIGINT", () => stop(EXIT.OK, "SIGINT")],
      ["SIGUSR1", () => stop(EXIT.RESTART, "SIGUSR1 (restart)", "restart")],
      // Last resort when the process exits without a graceful stop: no MCP server may outlive us.
      ["exit", () => daemon.killChildrenNow()],
      [
        "unhandledRejection",
        (reason) => {
          logger.error({ err: reason }, "unhandled promise rejection (bug): continuing");
        },
      ],
      [
        "uncaughtException",
        (err) => {
          logger.fatal({ err }, "uncaught exception (bug): stopping");
          stop(EXIT.FAILURE, "uncaught exception");
        },
      ],
    ];
    for (const [sig, fn] of handlers) process.on(sig, fn);
    // A second /restart while stopping changes nothing (a second signal would force the exit).
    restart = () => {
      if (!stopping) stop(EXIT.RESTART, "/restart", "restart");
    };
  });
}
