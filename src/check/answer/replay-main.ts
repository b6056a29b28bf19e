// The entry of dist/bundle/check-replay.cjs (scripts/bundle-cli.mjs): see replay.ts.
import { main } from "./replay.js";

main();
