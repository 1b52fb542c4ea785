/** `hermes-gateway doctor` and `config check`. */

import { formatSetupLines, type SetupLine, setupReport } from "../setup-report.js";
import { openHomeStore, stateDbPath } from "../wiring/store.js";
import type { ParsedCli } from "./command-args.js";
import { type CliIo, loadOrReport, resolveHome } from "./context.js";
import { discordDoctorLines } from "./doctor-discord.js";
import { mcpDoctorLines } from "./doctor-mcp.js";
import { slackDoctorLines } from "./doctor-slack.js";
import { EXIT } from "./exit-codes.js";

export async function configCheckCommand(cli: ParsedCli, env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const home = resolveHome(env);
  const config = await loadOrReport(home, cli.values.config, env, io);
  if (!config) return EXIT.CONFIG;
  io.out(`configuration is valid (${config.configPath ?? "no config file: built-in defaults and environment"})`);
  return EXIT.OK;
}

export async function doctorCommand(cli: ParsedCli, env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<number> {
  const home = resolveHome(env);
  const config = await loadOrReport(home, cli.values.config, env, io);
  if (!config) return EXIT.CONFIG;
  const lines: SetupLine[] = [{ subject: "config", status: "ok", message: config.configPath ?? "no config file: built-in defaults and environment" }];
  let storeOk = true;
  try {
    const store = openHomeStore(home);
    const count = store.sessions.list({ limit: 1 }).length;
    store.close();
    lines.push({ subject: "store", status: "ok", message: `${stateDbPath(home)}${count ? "" : " (no sessions yet)"}` });
  } catch (err) {
    storeOk = false;
    lines.push({ subject: "store", status: "error", message: (err as Error).message });
  }
  lines.push(...setupReport(config), ...(await discordDoctorLines(config)), ...(await slackDoctorLines(config)), ...(await mcpDoctorLines(config, { env })));
  io.out(formatSetupLines(lines));
  return storeOk ? EXIT.OK : EXIT.FAILURE;
}
