/** Registers the Python type checkers: ty first (the default for Python projects), then mypy and pyright. */
import { registerTypeChecker } from "../type-checkers.js";
import { mypyCheck } from "./mypy.js";
import { pyrightCheck } from "./pyright.js";
import { tyCheck } from "./ty.js";
import { isPythonTarget } from "./type-check-common.js";

registerTypeChecker({ name: "ty", languages: ["python"], claims: isPythonTarget, check: tyCheck });
registerTypeChecker({ name: "mypy", languages: ["python"], check: mypyCheck });
registerTypeChecker({ name: "pyright", languages: ["python"], check: pyrightCheck });
