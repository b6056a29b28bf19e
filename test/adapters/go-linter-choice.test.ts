/**
 * Issue 39: the linter of a Go project is the project's own. goLinter (tool-choice.ts) picks golangci-lint
 * where the module has a golangci-lint config (in its folder or above it, up to the allowed root, as
 * golangci-lint searches), govet elsewhere; configured but not installed, govet with a note saying so.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { goLinter, linterFor } from "../../src/adapters/tool-choice.js";
import { tempDir } from "../helpers/tools.js";

const saved = {
  PATH: process.env.PATH,
  GOBIN: process.env.GOBIN,
  GOPATH: process.env.GOPATH,
  HOME: process.env.HOME,
};
afterEach(() => Object.assign(process.env, saved));

/** A PATH (and GOBIN, GOPATH, ~/go/bin) with golangci-lint, a stand-in executable, or without it. */
function installed(yes: boolean): void {
  const bin = tempDir("mcq-gobin-");
  if (yes) fs.writeFileSync(path.join(bin, "golangci-lint"), "#!/bin/sh\n", { mode: 0o755 });
  process.env.PATH = `${bin}:/usr/bin:/bin`;
  process.env.GOBIN = bin;
  process.env.GOPATH = tempDir("mcq-gopath-");
  process.env.HOME = tempDir("mcq-home-");
}

function module(root: string, rel = "."): string {
  const dir = path.join(root, rel);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "go.mod"), "module example.com/m\n\ngo 1.22\n");
  return dir;
}

describe("goLinter", () => {
  it("no golangci-lint config: govet, installed or not", () => {
    installed(true);
    const mod = module(tempDir());
    expect(goLinter(mod, mod)).toEqual({ name: "govet" });
    expect(linterFor("go", mod, mod)).toBe("govet");
  });

  it("a config in the module (any of its names; .json first, as golangci-lint reads them): golangci-lint", () => {
    installed(true);
    const mod = module(tempDir());
    fs.writeFileSync(path.join(mod, ".golangci.yml"), 'version: "2"\n');
    fs.writeFileSync(path.join(mod, ".golangci.json"), '{"version": "2"}');
    expect(goLinter(path.join(mod), mod)).toEqual({
      name: "golangci-lint",
      config: path.join(mod, ".golangci.json"),
    });
  });

  it("a config above the module, inside the allowed root: golangci-lint; above the root: not seen", () => {
    installed(true);
    const outer = tempDir();
    const root = path.join(outer, "repo");
    const mod = module(root, "svc");
    fs.writeFileSync(path.join(outer, ".golangci.yaml"), 'version: "2"\n');
    expect(goLinter(mod, root).name).toBe("govet");
    fs.writeFileSync(path.join(root, ".golangci.toml"), 'version = "2"\n');
    expect(goLinter(mod, root)).toEqual({ name: "golangci-lint", config: path.join(root, ".golangci.toml") });
  });

  it("configured but not installed: govet, with a note that the verdict is not the project's own", () => {
    installed(false);
    const mod = module(tempDir());
    fs.writeFileSync(path.join(mod, ".golangci.yml"), 'version: "2"\n');
    const choice = goLinter(mod, mod);
    expect(choice.name).toBe("govet");
    expect(choice.note).toBe(
      "the project's golangci-lint config (.golangci.yml) was not honoured: golangci-lint is not installed, so " +
        "govet ran instead and this verdict is not the project's own; install: " +
        "go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@latest",
    );
  });
});
