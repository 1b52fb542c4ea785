/** The SIGKILL burst (sigkill-burst.ts) in busy mode queue: a message that arrives during a turn waits for a turn of its own. */
import { burstSuite } from "./sigkill-burst.js";

burstSuite("queue");
