/** Registers the JavaScript/TypeScript adapters: ESLint (lint, lint_fix), tsc (type_check), Prettier. */
import "./eslint.js";
import "./prettier.js";
import "./tsc.js";
import "./test-runner.js";
import "./eslint-explain.js";
import "../npm/npm-audit-scan.js";
