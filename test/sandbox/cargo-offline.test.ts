/**
 * A crate's build script is the project's code, and it ran with the network during a read-only type_check
 * (a red team's build.rs reached a listener on 127.0.0.1 and the internet). cargo's fill step (`cargo
 * fetch`, which runs no project code) puts every crate in place first; the build itself now runs without
 * network, as cargo does offline. Real cargo, real bubblewrap, a real listener.
 */
import net from "node:net";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type Connected } from "../helpers/server.js";
import { missing, tempDir } from "../helpers/tools.js";
import { probeSandbox } from "../../src/exec/sandbox/launch.js";

describe.skipIf(missing("cargo"))("cargo's builds after the fetch", () => {
  const root = fs.realpathSync(tempDir("mcq-cargo-offline-"));
  let s: Connected;
  let server: net.Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    expect(probeSandbox()).toMatchObject({ available: true });
    server = net.createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as net.AddressInfo).port;
    fs.writeFileSync(
      path.join(root, "Cargo.toml"),
      '[package]\nname = "reach"\nversion = "0.1.0"\nedition = "2021"\nbuild = "build.rs"\n',
    );
    fs.writeFileSync(
      path.join(root, "Cargo.lock"),
      'version = 3\n\n[[package]]\nname = "reach"\nversion = "0.1.0"\n',
    );
    fs.mkdirSync(path.join(root, "src"));
    fs.writeFileSync(path.join(root, "src", "lib.rs"), "pub fn f() -> u32 {\n    1\n}\n");
    fs.writeFileSync(
      path.join(root, "build.rs"),
      `fn main() {\n    let reached = std::net::TcpStream::connect("127.0.0.1:${port}").is_ok();\n    println!("cargo:warning=reached={reached}");\n}\n`,
    );
    s = await connectStdio({
      cwd: root,
      args: ["--sandbox", "required", "--result-cache", "false", "--allowed-paths", root],
    });
  });
  afterAll(async () => {
    await s?.close();
    server?.close();
  });

  it("a build script during type_check reaches no listener", async () => {
    const r = await s.call("type_check", { path: root, checker: "cargo" });
    expect(r, JSON.stringify(r).slice(0, 1500)).toMatchObject({ success: true, passed: true });
    expect(connections).toBe(0);
  }, 180_000);
});
