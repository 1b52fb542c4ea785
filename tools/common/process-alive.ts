/**
 * Whether a process exists, by signal 0. A zombie still exists; so does a
 * process of another user (EPERM). A negative id asks about a whole process
 * group: whether any of its members is alive.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
