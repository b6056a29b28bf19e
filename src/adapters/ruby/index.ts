/** Registers the Ruby adapters: RuboCop (lint, lint_fix, and format for Layout cops) through its warm worker. */
import "./rubocop.js";
import "./rubocop-explain.js";
import "./ruby-scanners.js";
import "./ruby-tests.js";
