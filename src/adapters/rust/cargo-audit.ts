/** cargo audit, the Rust dependency scanner: named by security_scan, not run by this server yet. */
import { findExecutable } from "../../exec/which.js";
import { registerSecurityScanner } from "../security-scanners.js";

registerSecurityScanner({
  name: "cargo-audit",
  languages: ["rust"],
  kind: "dependencies",
  install: "cargo install cargo-audit",
  unavailable: () =>
    findExecutable("cargo-audit")
      ? "cargo audit is installed but this server does not run it yet (it fetches the RustSec advisory database from GitHub): run `cargo audit` in the crate"
      : "cargo audit is not installed: cargo install cargo-audit (it fetches the RustSec advisory database from GitHub)",
});
