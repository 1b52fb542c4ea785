/**
 * The environment hint (prompt layer 3, as in Hermes Agent): where the agent's tools act.
 * Built from plain data so the caller decides what is true (local host, or a
 * remote backend it probed); `localEnvironment` reads the local host.
 */
import { homedir, type as osType, release } from "node:os";

export interface EnvironmentFacts {
  /** e.g. "Linux (6.1.0)" or "macOS (14.5)". */
  readonly host: string;
  readonly home: string;
  readonly cwd: string;
  /** Set when tools run somewhere else (docker, ssh …); the host facts are then irrelevant. */
  readonly backend?: { readonly name: string; readonly os?: string; readonly user?: string; readonly home?: string; readonly cwd?: string } | undefined;
}

export function localEnvironment(cwd: string): EnvironmentFacts {
  const name = osType() === "Darwin" ? "macOS" : osType() === "Windows_NT" ? "Windows" : osType();
  return { host: `${name} (${release()})`, home: homedir(), cwd };
}

export function environmentHint(env: EnvironmentFacts): string {
  if (!env.backend) return [`Host: ${env.host}`, `User home directory: ${env.home}`, `Current working directory: ${env.cwd}`].join("\n");
  const b = env.backend;
  const facts = [b.os && `  OS: ${b.os}`, b.user && `  User: ${b.user}`, b.home && `  Home: ${b.home}`, b.cwd && `  Working directory: ${b.cwd}`].filter(
    Boolean,
  );
  return (
    `Terminal backend: ${b.name}. Your \`terminal\`, \`read_file\`, \`write_file\`, \`patch\`, and \`search_files\` tools all ` +
    `operate inside this ${b.name} environment — NOT on the machine where Hermes itself is running. The host OS, home, and ` +
    `cwd of the Hermes process are irrelevant; only the following backend state matters:\n${facts.join("\n")}`
  );
}
