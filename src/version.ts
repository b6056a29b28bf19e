import { PACKAGE_VERSION } from "./package-root.js";

/** The package version, read once from the package's package.json. */
export const VERSION: string = PACKAGE_VERSION;
