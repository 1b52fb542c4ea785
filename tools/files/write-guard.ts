/**
 * The file tools ask the approval policy before they write, exactly as the
 * terminal does before it runs a command: protected locations need a
 * person's approval through the turn's approval channel, and a refusal is a
 * result the model can read (with no channel, the write is refused).
 */
import type { ToolContext } from "../../agent/types.js";
import type { ApprovalPolicy } from "../approval/policy.js";
import { fail } from "./shared.js";

export interface WriteRequest {
  readonly tool: "write_file" | "patch";
  readonly path: string;
  readonly after: string;
  readonly before?: string | null;
}

/** Null when the write may go ahead; otherwise the tool result to return. */
export async function refusedWrite(policy: ApprovalPolicy, request: WriteRequest, ctx: ToolContext, signal: AbortSignal): Promise<string | null> {
  const decision = await policy.checkWrite(request, ctx, signal);
  if (decision.allowed) return null;
  return fail(decision.message, { blocked: true, code: decision.code, path: request.path });
}
