// Part of `npm run build`, its last step: records the build id (the hash of dist's .js and .json files
// and of ruby/, data/ and policy/: src/cache/build-id.ts) in dist/build-id.json, so a server's start reads it instead of hashing dist/.
import fs from "node:fs";
import path from "node:path";
import { BUILD_ID_FILE, computeBuildId } from "../dist/cache/build-id.js";

const dist = path.resolve("dist");
fs.writeFileSync(path.join(dist, BUILD_ID_FILE), `${JSON.stringify({ id: computeBuildId(dist) })}\n`);
