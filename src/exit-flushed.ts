/** How the command line ends its output: shared by every entry point (main.ts, check-client.ts). */

/** A reader that stops early (`check --json | head`) is no failure: the rest is simply not written. */
export function ignoreClosedStdout(): void {
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
  });
}

/**
 * Exits once stdout and stderr have handed every byte to the OS: process.exit() drops what a pipe has not
 * taken yet (a slow reader of `check --json` got the first 64 KiB). The empty write's callback comes after
 * every write queued before it.
 */
export async function exitWhenFlushed(code: number): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) =>
        new Promise<void>((resolve) =>
          stream.writableEnded || stream.destroyed ? resolve() : stream.write("", () => resolve()),
        ),
    ),
  );
  process.exit(code);
}
