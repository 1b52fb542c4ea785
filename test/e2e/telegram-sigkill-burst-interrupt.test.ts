/** The SIGKILL burst (sigkill-burst.ts) in busy mode interrupt: a message that arrives during a turn interrupts it. */
import { burstSuite } from "./sigkill-burst.js";

burstSuite("interrupt");
