/** rubocop_explain (seed 003): what cops do, from RuboCop's own documentation and the project's resolved config. */
import { z } from "zod";
import { explainCops } from "../../../adapters/ruby/rubocop-explain.js";
import { defineTool, READ_ONLY } from "../../../engine/tool.js";
import { defaultPath } from "./params.js";

export const rubocopExplainTool = () =>
  defineTool({
    name: "rubocop_explain",
    description:
      "Explain cops or departments: description, bad and good examples, configuration as resolved for path, " +
      "autocorrection safety, docs URL; unknown names get suggestions.",
    input: z.strictObject({
      cop_names: z.array(z.string()).min(1).describe("Cops (Lint/UselessAssignment) or departments (Lint)"),
      path: z
        .string()
        .optional()
        .describe("File or directory whose configuration applies (default: the project)"),
    }),
    annotations: { title: "RuboCop's explanations", ...READ_ONLY },
    paths: [{ arg: "path", kind: "any" }],
    exactResult: true,
    async handler(args, ctx) {
      return { success: true, cops: await explainCops(ctx, args.cop_names, args.path ?? defaultPath(ctx)) };
    },
  });
