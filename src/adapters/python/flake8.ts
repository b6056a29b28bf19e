/** flake8: pure argv builder (its output is the common `path:line:col: CODE message` form). */
import { registerExternalTool } from "../registry.js";

registerExternalTool({ name: "flake8", program: "flake8", versionArgs: ["--version"] });

/**
 * `flake8 [--config F | --isolated] [--extend-exclude D,...] -- targets...`. flake8 splits exclude lists
 * on commas and whitespace, so folders whose paths hold either cannot be passed (the caller leaves them out).
 */
export function flake8Args(
  targets: readonly string[],
  opts: { configArgs: string[]; extendExclude?: readonly string[] },
): string[] {
  const exclude = (opts.extendExclude ?? []).filter((d) => !/[\s,]/.test(d));
  return [
    ...opts.configArgs,
    ...(exclude.length ? [`--extend-exclude=${exclude.join(",")}`] : []),
    "--",
    ...targets,
  ];
}
