/** Shared set-up for the web tool tests: a config's `web` section and the tools built from it. */
import { afterEach, beforeEach } from "vitest";
import { stringify } from "yaml";
import { buildConfig } from "../../config/load.js";
import type { Config } from "../../config/schema.js";
import { createWebTools, type WebToolDeps, type WebTools } from "../../tools/web/index.js";
import { type FakeWeb, startFakeWeb } from "../fakes/web-server.js";

export function webConfig(web: Record<string, unknown> = {}): Config["web"] {
  return buildConfig({ yamlText: stringify({ web }), file: null, env: {}, home: "/tmp/hermes-test" }).web;
}

/** Builds the tools; `close()` them in afterEach. */
export function webTools(web: Record<string, unknown> = {}, deps: WebToolDeps = {}): WebTools {
  return createWebTools(webConfig(web), deps);
}

/** A fresh fake web per test, and whatever tools the test built closed after it. */
export function useFakeWeb(): { web: () => FakeWeb; track: (t: WebTools) => WebTools } {
  let web: FakeWeb | undefined;
  let tools: WebTools | undefined;
  beforeEach(async () => {
    web = await startFakeWeb();
  });
  afterEach(async () => {
    await tools?.close();
    tools = undefined;
    await web?.close();
  });
  return {
    web: () => web as FakeWeb,
    track: (t) => {
      void tools?.close();
      return (tools = t);
    },
  };
}
