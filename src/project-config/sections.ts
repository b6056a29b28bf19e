/**
 * The sections of `.mcp-code-quality/config.yaml`, one zod schema each. A new section is one more
 * entry here (and in docs/project-config.md); unknown sections and keys are refused, so a typo never
 * passes silently. Nothing here may name paths outside the project or loosen the server's limits: the
 * file is the project's wishes, the server's flags stay in charge.
 */
import { z } from "zod";

const pattern = z.string().min(1).max(1000);

export const markdownLinksSection = z.strictObject({
  ignore_patterns: z.array(pattern).max(200).optional(),
  exclude: z.array(pattern).max(200).optional(),
  rewrite: z
    .array(z.strictObject({ pattern, replacement: z.string().max(1000) }))
    .max(100)
    .optional(),
  anchor_case_sensitive: z.boolean().optional(),
  skip_anchors: z.boolean().optional(),
  check_external: z.boolean().optional(),
  timeout: z.number().int().min(1).max(120).optional(),
  concurrent: z.number().int().min(1).max(64).optional(),
  github_links_on_disk: z.boolean().optional(),
});

/** `network: false` cuts run_tests' network (loopback only); `true` cannot give back what the operator cut. */
export const runTestsSection = z.strictObject({
  network: z.boolean().optional(),
});

export const projectConfigSchema = z.strictObject({
  markdown_links: markdownLinksSection.optional(),
  run_tests: runTestsSection.optional(),
});

export type ProjectConfig = z.infer<typeof projectConfigSchema>;
export type MarkdownLinksSettings = z.infer<typeof markdownLinksSection>;
