/** The schema tag for secrets; kept apart so every schema module can use it. */
import * as z from "zod";

/** A string whose value must never reach a log line. */
export const secret = () => z.string().meta({ secret: true });
