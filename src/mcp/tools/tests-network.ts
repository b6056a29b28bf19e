/**
 * run_tests' network as the project asks: `.mcp-code-quality/config.yaml` `run_tests.network: false` cuts
 * it (a loopback-only network namespace), whatever the operator allows; `true` cannot give back what the
 * operator's `--tests-network false` cut. The project may only tighten.
 */
import type { ToolContext } from "../../engine/tool.js";
import { withTestsNetworkCut } from "../../exec/sandbox/scope.js";
import { loadProjectConfig } from "../../project-config/index.js";

/** Runs `fn` with run_tests' network as the operator and the project of `start` allow, noting a project's say. */
export function inTestsNetworkScope<T>(ctx: ToolContext, start: string, fn: () => Promise<T>): Promise<T> {
  const project = loadProjectConfig(start, ctx.allowlist);
  const wanted = project.config.run_tests?.network;
  if (wanted === false) {
    if (ctx.config.testsNetwork)
      ctx.note(
        `the tests ran without network (loopback only): run_tests.network is false in ${project.file}`,
      );
    return withTestsNetworkCut(fn);
  }
  if (wanted === true && !ctx.config.testsNetwork)
    ctx.note(
      `run_tests.network is true in ${project.file}, but the operator's --tests-network false keeps the tests offline`,
    );
  return fn();
}
