import { z } from "zod";
import { ToolError } from "../../errors.js";
import { defineTool, READ_ONLY } from "../../engine/tool.js";
import { explainerNames, findRuleExplainer } from "../../adapters/rule-explainers.js";
import { defaultLinter } from "./pipeline/choose.js";

/** Listed once a linter registers an explainer. */
export const explainRulesTool = () => {
  const names = explainerNames();
  if (names.length === 0) return undefined;
  return defineTool({
    name: "explain_rules",
    description: "Explain lint rules from the linter's docs: examples, config, fix safety.",
    input: z.strictObject({
      rules: z
        .array(z.string().min(1).max(200))
        .min(1)
        .max(50)
        .describe("Rule ids or categories, e.g. F401, E"),
      linter: z
        .enum(names as [string, ...string[]])
        .optional()
        .describe("Default: by the rule ids"),
      path: z.string().optional().describe("Whose config to show; relative to cwd"),
    }),
    annotations: { title: "Explain lint rules", ...READ_ONLY },
    paths: [{ arg: "path", kind: "any", default: "." }],
    async handler(args, ctx) {
      // Filled by the pipeline's path default (the working directory's project, else the allowed root).
      const target = args.path as string;
      const linter = args.linter ?? defaultLinter(target).name;
      const explainer = findRuleExplainer(linter);
      if (!explainer)
        throw new ToolError(
          "invalid_input",
          `no rule explanations for ${linter}; explain_rules knows ${names.join(", ")} (pass linter)`,
        );
      const rules = [...new Set(args.rules)];
      const { items, notes = [] } = await explainer.explain(ctx, rules, target);
      return {
        success: true,
        linter,
        rules: items,
        unknown_count: items.filter((i) => i.kind === "unknown").length,
        notes,
      };
    },
  });
};
