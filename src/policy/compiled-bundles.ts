/** The bundles a worker thread compiled from their specs, kept for the thread's later requests. */
import type { Bundle } from "./bundle.js";
import type { BundleSpec } from "./bundle-spec.js";
import { compileBundle } from "./compile.js";

const bundles = new Map<string, Promise<Bundle>>();

/** The bundle `spec` describes, compiled once per thread; throws when it is not the server's (another hash). */
export async function bundleOfSpec(spec: BundleSpec): Promise<Bundle> {
  const key = JSON.stringify([spec.projectFile, spec.projectText, spec.allowLoosening]);
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = compileBundle({
      ...(spec.projectFile !== undefined ? { projectFile: spec.projectFile } : {}),
      ...(spec.projectText !== undefined ? { projectText: spec.projectText } : {}),
      allowLoosening: spec.allowLoosening,
    });
    if (bundles.size > 16) bundles.clear();
    bundles.set(key, bundle);
  }
  const b = await bundle;
  if (b.hash !== spec.hash)
    throw new Error(`the worker compiled bundle ${b.hash}, the server runs ${spec.hash}`);
  return b;
}
