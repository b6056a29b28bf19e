/** Registers the Python adapters (formatters, linters, type checkers, tests, scanners) with the registries. */
import "./format.js";
import "./lint.js";
import "./type-checkers.js";
import "./pytest.js";
import "./bandit-scan.js";
import "./pip-audit.js";
import "./ruff-fix.js";
import "./ruff-explain.js";
