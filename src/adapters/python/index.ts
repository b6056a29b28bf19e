/** Registers the Python adapters with the formatter and linter registries. */
import "./format.js";
import "./lint.js";
import "./ruff-fix.js";
import "./mypy.js";
