/**
 * Where a policy bundle comes from, as plain data: enough for a worker thread to compile the very same bundle
 * (same sources, so the same hash) as the server's (compiled-bundles.ts).
 */
export interface BundleSpec {
  projectFile?: string;
  projectText?: string;
  allowLoosening: boolean;
  hash: string;
}
