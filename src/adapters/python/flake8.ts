/** flake8: pure argv builder (its output is the common `path:line:col: CODE message` form). */
import { registerExternalTool } from "../registry.js";

registerExternalTool({ name: "flake8", program: "flake8", versionArgs: ["--version"] });

export function flake8Args(target: string, config?: string): string[] {
  return [...(config ? ["--config", config] : []), "--", target];
}
