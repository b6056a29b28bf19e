// `npm start`'s pre-step: builds only when dist/ is older than what it is built from, as make would decide
// (the sources, the build scripts, the policy bundle, the package and TypeScript settings). A full build
// takes about a minute; a start with dist/ current should not pay for it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const STAMP = "dist/build-id.json"; // written last by `npm run build`
const INPUTS = [
  "src",
  "scripts",
  "policy",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
];

/** The newest modification time under `p` (a file or a folder, walked whole), 0 when it does not exist. */
function newest(p) {
  let st;
  try {
    st = fs.lstatSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let most = st.mtimeMs;
  for (const name of fs.readdirSync(p)) most = Math.max(most, newest(path.join(p, name)));
  return most;
}

/** Why a build is needed, or undefined when dist/ is current. */
function staleness() {
  // An installed package has no sources: its dist/ is what it is.
  if (!fs.existsSync("src")) return undefined;
  let built;
  try {
    built = fs.statSync(STAMP).mtimeMs;
  } catch {
    return "dist/ has not been built";
  }
  const changed = INPUTS.find((p) => newest(p) > built);
  return changed && `${changed} changed since the last build`;
}

const why = staleness();
if (!why) {
  console.error("dist/ is current (npm run build rebuilds it)");
} else {
  console.error(`building: ${why}`);
  const r = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}
