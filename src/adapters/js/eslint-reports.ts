/** What an ESLint run through the result cache is given and gives back (per file or whole-program). */
import type { CacheMarker } from "../cached-findings.js";
import type { EslintScope } from "./eslint-scope.js";
import type { WireFileReport } from "./eslint-wire.js";

export type EslintCall = (scope: EslintScope) => Promise<{ result: WireFileReport[]; note: string }>;

export interface CachedReports {
  reports: WireFileReport[];
  /** The worker's note, when a run happened. */
  note?: string;
  cache: CacheMarker;
}
