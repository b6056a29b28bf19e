/**
 * Every linter's registration (registerLinter) and nothing else of the languages' tools: what `lint_check`
 * needs when it is the only tool loaded (the git pre-commit hook). mcp/tools/index.ts loads each language
 * whole, these included.
 */
import "./python/lint.js";
import "./js/eslint.js";
import "./go/go-lint.js";
import "./go/golangci-lint.js";
import "./rust/clippy.js";
import "./ruby/rubocop.js";
