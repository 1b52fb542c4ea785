import { describe, expect, it } from "vitest";
import { createApprovalPolicy } from "../../tools/approval/index.js";
import { testConfig } from "../runtime/helpers/harness.js";

const policy = createApprovalPolicy({
  approvals: testConfig().approvals,
  guard: { home: "/home/ada", hermesHome: "/srv/hermes", configPath: "/opt/hermes.yaml" },
});

describe("which files may leave the machine as attachments", () => {
  it.each([
    ["/home/ada/.ssh/id_ed25519", "credentials"],
    ["/home/ada/.ssh/config", "credentials"],
    ["~/.aws/credentials", "credentials"],
    ["/home/ada/.kube/config", "credentials"],
    ["/home/ada/.bashrc", "shell start-up"],
    ["/srv/hermes/.env", "govern the gateway"],
    ["/srv/hermes/auth.json", "govern the gateway"],
    ["/srv/hermes/state.db", "govern the gateway"],
    ["/srv/hermes/config.yaml", "govern the gateway"],
    ["/opt/hermes.yaml", "govern the gateway"],
    ["/home/ada/project/.env.production", ".env"],
    ["/home/ada/backup/server.pem", "private key"],
    ["/tmp/id_rsa", "private key"],
    ["/etc/shadow", "system"],
    ["/proc/self/environ", "system"],
    ["/run/secrets/db_password", "system"],
  ])("refuses %s", (path, why) => {
    expect(policy.exportRefusal(path)).toContain(why);
  });

  it.each([
    "/tmp/chart.png",
    "/home/ada/report.pdf",
    "/srv/hermes/cache/images/photo.jpg",
    "/home/ada/.ssh.png",
    "/home/ada/id_rsa.pub",
    "/home/ada/notes/etc/x.txt",
  ])("lets %s go", (path) => {
    expect(policy.exportRefusal(path)).toBeNull();
  });

  it("sees through `..` and the home spelled out", () => {
    expect(policy.exportRefusal("/tmp/../home/ada/.ssh/known_hosts")).not.toBeNull();
    expect(policy.exportRefusal("/srv/hermes/cache/../.env")).not.toBeNull();
  });
});
