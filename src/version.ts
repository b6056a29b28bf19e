import fs from "node:fs";
import { packagePath } from "./package-root.js";

/** The package version, read once from the package's package.json. */
export const VERSION: string = (
  JSON.parse(fs.readFileSync(packagePath("package.json"), "utf8")) as { version: string }
).version;
