/** Creates real virtualenvs for tests (Debian's python3; packages only from the machine's local mirror). */
import { execFileSync } from "node:child_process";
import path from "node:path";

export function makeVenv(dir: string, options: { systemSitePackages: boolean; install?: string[] }): string {
  const args = ["-m", "venv", ...(options.systemSitePackages ? ["--system-site-packages"] : []), dir];
  execFileSync("/usr/bin/python3", args, { stdio: "pipe" });
  const python = path.join(dir, "bin", "python");
  if (options.install?.length)
    execFileSync(
      python,
      [
        "-m",
        "pip",
        "install",
        "-q",
        "--disable-pip-version-check",
        "--index-url",
        "file:///opt/pypi/simple",
        ...options.install,
      ],
      { stdio: "pipe" },
    );
  return python;
}
