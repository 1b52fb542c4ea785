/**
 * What the HTTP routes (chat-routes.ts, approval-routes.ts) use of the API
 * adapter, which implements it: so the routes and the adapter that mounts
 * them do not import each other.
 */
import type { ApiPlatformConfig } from "../../config/schema.js";
import type { DeliverResult, InboundEvent } from "../types.js";
import type { guard } from "./guard.js";
import type { OpenPrompts } from "./open-prompts.js";
import type { PendingReplies } from "./pending-replies.js";

export interface ApiRouteHost {
  readonly opts: { readonly config: ApiPlatformConfig };
  /** Every route's onRequest hook: the key and the adapter's state, checked before the body is read. */
  readonly admit: ReturnType<typeof guard>;
  /** Requests waiting for their reply. */
  readonly replies: PendingReplies;
  /** Approval and clarify prompts waiting for an answer. */
  readonly prompts: OpenPrompts;
  /** Hands an event to the runtime; null when the adapter is not running. */
  deliver(event: InboundEvent): Promise<DeliverResult | null>;
}
