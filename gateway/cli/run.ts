/**
 * `hermes-gateway run`: start the daemon and stay up until a signal.
 * SIGTERM/SIGINT stop gracefully (exit 0); a second signal forces exit 1;
 * SIGUSR1 stops gracefully and exits 75 so a supervisor restarts us.
 * The handlers are in place before start-up begins: a signal during start-up
 * (systemd stop, docker stop while platforms connect) aborts the start, stops
 * what has started in reverse, and exits the same way.
 */
import type { Logger } from "pino";
import { HermesError } from "../../config/errors.js";
import { collectSecrets } from "../../config/index.js";
import { createLogger } from "../log.js";
import { createDaemon, type Daemon } from "../wiring/daemon.js";
import type { ParsedCli } from "./command-args.js";
import { type CliIo, ensureHome, loadOrReport, packageVersion, resolveHome } from "./context.js";
import { EXIT } from "./exit-codes.js";

type Handler = [NodeJS.Signals | "exit" | "unhandledRejection" | "uncaughtException", (...a: unknown[]) => void];

export async function runCommand(cli: ParsedCli, env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const home = resolveHome(env);
  await ensureHome(home);
  const config = await loadOrReport(home, cli.values.config, env, io);
  if (!config) return EXIT.CONFIG;
  const logger = createLogger({
    level: config.logging.level,
    format: config.logging.format,
    secrets: collectSecrets(config),
    isTty: process.stdout.isTTY === true,
  });
  let restart: (() => void) | null = null;
  const daemon = createDaemon({ config, logger, version: await packageVersion(), requestRestart: () => restart?.() });

  return new Promise<number>((resolveExit) => {
    const startup = new AbortController();
    let started = false;
    /** Set by the first signal: how to stop and what to exit with. */
    let stopping: { readonly exitCode: number; readonly reason: "shutdown" | "restart" } | null = null;

    const stopDaemon = ({ exitCode, reason }: NonNullable<typeof stopping>) => {
      daemon.stop(reason).then(
        () => finish(exitCode),
        (err: unknown) => {
          logger.error({ err }, "stop failed");
          finish(EXIT.FAILURE);
        },
      );
    };
    const stop: Stop = (exitCode, why, reason = "shutdown") => {
      if (stopping) {
        logger.warn({ why }, "second signal: exiting now");
        logger.flush();
        process.exit(EXIT.FAILURE);
      }
      stopping = { exitCode, reason };
      logger.info({ why }, "stopping");
      // During start-up the start is aborted instead; it stops what has started before it settles.
      if (started) stopDaemon(stopping);
      else startup.abort(new Error(`${why} during start-up`));
    };
    const finish = (exitCode: number) => {
      for (const [sig, fn] of handlers) process.off(sig, fn);
      logger.info({ exitCode }, "stopped");
      logger.flush();
      resolveExit(exitCode);
    };
    const handlers = processHandlers(daemon, logger, stop);
    for (const [sig, fn] of handlers) process.on(sig, fn);
    // /restart takes SIGUSR1's path; a second one while stopping changes nothing (a second signal would force the exit).
    restart = () => {
      if (!stopping) stop(EXIT.RESTART, "/restart", "restart");
    };

    daemon.start(startup.signal).then(
      () => {
        started = true;
        if (stopping) stopDaemon(stopping); // a signal the start no longer saw
      },
      (err: unknown) => finish(stopping ? stopping.exitCode : startFailure(err, logger, io)),
    );
  });
}

type Stop = (exitCode: number, why: string, reason?: "shutdown" | "restart") => void;

/** What the process answers with `stop`: the signals, and a bug nothing caught. */
function processHandlers(daemon: Daemon, logger: Logger, stop: Stop): Handler[] {
  return [
    ["SIGTERM", () => stop(EXIT.OK, "SIGTERM")],
    ["SIGINT", () => stop(EXIT.OK, "SIGINT")],
    ["SIGUSR1", () => stop(EXIT.RESTART, "SIGUSR1 (restart)", "restart")],
    // Last resort when the process exits without a graceful stop: no MCP server may outlive us.
    ["exit", () => daemon.killChildrenNow()],
    ["unhandledRejection", (reason) => logger.error({ err: reason }, "unhandled promise rejection (bug): continuing")],
    [
      "uncaughtException",
      (err) => {
        logger.fatal({ err }, "uncaught exception (bug): stopping");
        stop(EXIT.FAILURE, "uncaught exception");
      },
    ],
  ];
}

/** Logs why the start failed; returns the exit code. */
function startFailure(err: unknown, logger: Logger, io: CliIo): number {
  logger.flush();
  // A config problem found only when a part starts is reported like one found at load: exit 78, no stack.
  if (err instanceof HermesError && err.code.startsWith("HGW_ERR_CONFIG_")) {
    io.err(`${err.code}: ${err.message}`);
    return EXIT.CONFIG;
  }
  // A coded error says what to fix: on stderr too, as a config problem is (the log may be JSON, or elsewhere).
  if (err instanceof HermesError) io.err(`${err.code}: ${err.message}`);
  logger.fatal({ err, code: err instanceof HermesError ? err.code : "unexpected" }, "startup failed");
  return EXIT.FAILURE;
}
