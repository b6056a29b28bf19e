/** Registers the Rust adapters: cargo fmt / rustfmt, clippy, cargo check (type_check), cargo test. */
import "./rustfmt.js";
import "./clippy.js";
import "./cargo-check.js";
import "./cargo-test.js";
import "./clippy-fix.js";
import "./clippy-explain.js";
import "./cargo-audit.js";
