/**
 * The connection pool under the provider SDKs: one undici Agent that follows
 * redirects, and undici's request(). http.ts loads this module with the first
 * model request, so undici is not loaded at start.
 */
import { Agent, type Dispatcher, interceptors, request } from "undici";

export interface Pool {
  /** Destroyed at shutdown. */
  readonly agent: Dispatcher;
  /** The agent with redirects followed, for request(). */
  readonly dispatcher: Dispatcher;
  readonly request: typeof request;
}

export function createPool(maxRedirections: number): Pool {
  const agent = new Agent();
  return { agent, request, dispatcher: agent.compose(interceptors.redirect({ maxRedirections })) };
}
