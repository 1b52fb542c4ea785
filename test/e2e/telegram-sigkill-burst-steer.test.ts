/** The SIGKILL burst (sigkill-burst.ts) in busy mode steer: a message that arrives during a turn joins it. */
import { burstSuite } from "./sigkill-burst.js";

burstSuite("steer");
