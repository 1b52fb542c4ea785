/** Process exit codes, shared by every command (sysexits-style where one exists). */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  /** `status`: no daemon runs for this HERMES_HOME (as `systemctl status` says of a stopped unit). */
  NOT_RUNNING: 3,
  USAGE: 64,
  /** Restart requested: a supervisor (systemd RestartForceExitStatus=75, Docker restart policy) starts us again. */
  RESTART: 75,
  /** Fatal configuration: restarting will not help until the config is fixed. */
  CONFIG: 78,
} as const;
