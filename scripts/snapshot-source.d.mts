// Types of scripts/snapshot-source.mjs for the tests that import it.
export declare const SNAPSHOT_SOURCE: { minifyWhitespace: boolean };
export declare function asciiOnly(file: string): void;
export declare function shareInteropWrappers(file: string): void;
export declare function finishSnapshotSource(file: string): void;
