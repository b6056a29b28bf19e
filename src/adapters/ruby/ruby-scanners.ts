/** Ruby's security scanners (brakeman for Rails applications, bundler-audit for Gemfile.lock): named, not run yet. */
import { findExecutable } from "../../exec/which.js";
import { registerSecurityScanner } from "../security-scanners.js";

registerSecurityScanner({
  name: "brakeman",
  languages: ["ruby"],
  kind: "code",
  install: "gem install brakeman",
  unavailable: () =>
    findExecutable("brakeman")
      ? "brakeman is installed but this server does not run it yet: run `brakeman` in the Rails application"
      : "brakeman (Rails applications) is not installed: gem install brakeman",
});
registerSecurityScanner({
  name: "bundler-audit",
  languages: ["ruby"],
  kind: "dependencies",
  install: "gem install bundler-audit",
  unavailable: () =>
    findExecutable("bundle-audit")
      ? "bundler-audit is installed but this server does not run it yet: run `bundle-audit check --update`"
      : "bundler-audit is not installed: gem install bundler-audit (it fetches ruby-advisory-db from GitHub)",
});
