/**
 * Argument parsing: the options main.ts parses for the commands it runs
 * (ParsedCli), and for the commands that take options of their own (setup,
 * service, status, healthcheck), which each declare their options and usage
 * text: `--help` prints that text, a mistake prints it to stderr with exit 64.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import type { CliIo } from "./context.js";
import { EXIT } from "./exit-codes.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

export interface CommandArgs<V> {
  readonly values: V;
  readonly positionals: readonly string[];
}

/** The parsed arguments, or the exit code when there is nothing more to do (help shown, or bad usage). */
export function parseCommandArgs<V>(argv: readonly string[], options: Options, usage: string, io: CliIo): CommandArgs<V> | number {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${usage}`);
    return EXIT.USAGE;
  }
  if (parsed.values.help) {
    io.out(usage);
    return EXIT.OK;
  }
  return { values: parsed.values as V, positionals: parsed.positionals };
}

/** The options of the commands main.ts parses itself (run, doctor, config, sessions, pairing, cron, chat). */
export interface ParsedCli {
  readonly command: readonly string[];
  readonly values: {
    config?: string;
    help?: boolean;
    version?: boolean;
    limit?: string;
    source?: string;
    query?: string;
    resume?: string;
    deliver?: string;
    name?: string;
    model?: string;
    timezone?: string;
  };
}

export function parseCli(argv: readonly string[]): ParsedCli {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
      limit: { type: "string" },
      source: { type: "string" },
      query: { type: "string", short: "q" },
      resume: { type: "string" },
      deliver: { type: "string" },
      name: { type: "string" },
      model: { type: "string" },
      timezone: { type: "string" },
    },
  });
  return { command: positionals, values };
}
