/** `hermes-gateway chat`: the agent in the terminal (one-shot `-q` or an interactive REPL), through the daemon's runtime. */
export { chatCommand } from "./command.js";
