/** Registers the Python type checkers: ty first (the default for Python projects), then mypy and pyright. */
import { registerTypeChecker } from "../type-checkers.js";
import { mypyCheck, mypyKeyFacts } from "./mypy.js";
import { pyrightCheck } from "./pyright.js";
import { tyCheck } from "./ty.js";
import { isPythonTarget } from "./type-check-common.js";
import { resolvePythonTool } from "./resolve.js";
import type { ToolContext } from "../../engine/tool.js";

const installed = (program: string) => (ctx: ToolContext, target: string) =>
  resolvePythonTool(ctx, program, target).executable !== undefined;

registerTypeChecker({
  name: "ty",
  languages: ["python"],
  claims: isPythonTarget,
  check: tyCheck,
  isAvailable: installed("ty"),
});
registerTypeChecker({
  name: "mypy",
  languages: ["python"],
  check: mypyCheck,
  keyFacts: mypyKeyFacts,
  isAvailable: installed("mypy"),
});
registerTypeChecker({ name: "pyright", languages: ["python"], check: pyrightCheck });
