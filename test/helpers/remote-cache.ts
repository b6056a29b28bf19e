/**
 * A real Turborepo remote cache server for tests: ducktors' turborepo-remote-cache (a devDependency), with
 * its local-filesystem storage in a temp folder, on 127.0.0.1 and a free port, a static bearer token.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { tempDir } from "./tools.js";

export interface RemoteCacheServer {
  url: string;
  token: string;
  storage: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startRemoteCache(token = "test-token"): Promise<RemoteCacheServer> {
  const pkg = createRequire(import.meta.url).resolve("turborepo-remote-cache/package.json");
  const cli = path.join(path.dirname(pkg), "dist", "cli.js");
  const storage = tempDir("mcq-turbo-storage-");
  const child = spawn(process.execPath, [cli], {
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: "0",
      TURBO_TOKEN: token,
      STORAGE_PROVIDER: "local",
      STORAGE_PATH: storage,
      STORAGE_PATH_USE_TMP_FOLDER: "false",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`remote cache did not start: ${out}`)), 30_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`remote cache exited ${code}: ${out}`));
    });
  });
  return {
    url,
    token,
    storage,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
