/**
 * The `approvals` section: when a dangerous command waits for a person, what
 * is always refused, and what never needs asking.
 */
import * as z from "zod";
import { seconds } from "./schema-fields.js";

export const ApprovalsSchema = z
  .object({
    mode: z.enum(["manual", "smart", "off"]).default("manual"),
    timeout_s: seconds(60),
    cron_mode: z.enum(["deny", "approve"]).default("deny"),
    /** Globs (case-insensitive) of commands that are always refused. */
    deny: z.array(z.string()).default([]),
    /** Exact commands or globs that never need approval (no shell operators). */
    allowlist: z.array(z.string()).default([]),
    mcp_reload_confirm: z.boolean().default(true),
  })
  .strict()
  .prefault({});
