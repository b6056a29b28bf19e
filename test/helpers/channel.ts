/**
 * How a stand-in tool reports back from its sandbox: no folder outside the project stays writable across runs
 * (issue 38), so it writes into FIFOs the test made in a folder the sandbox shows read-only (an extra allowed
 * root). A FIFO may be written on a read-only mount; the test holds it open, so a writer never blocks.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "./tools.js";

export interface Fifo {
  path: string;
  /** Everything written so far. */
  read(): string;
  /** Polls until `read()` contains `text` (at most `ms`). */
  until(text: string, ms?: number): Promise<string>;
  close(): void;
}

export interface Channel {
  /** Pass it in --allowed-paths: every sandbox then shows it, read-only. */
  dir: string;
  fifo(name: string): Fifo;
}

/** `inside`: make the FIFOs in this folder (one the sandbox already shows) rather than a new one. */
export function reportChannel(prefix = "mcq-channel-", inside?: string): Channel {
  const dir = inside ?? tempDir(prefix);
  return {
    dir,
    fifo(name) {
      const p = path.join(dir, name);
      execFileSync("mkfifo", ["-m", "600", p]);
      const fd = fs.openSync(p, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
      let text = "";
      const buf = Buffer.alloc(65_536);
      const read = () => {
        for (;;) {
          let n: number;
          try {
            n = fs.readSync(fd, buf, 0, buf.length, null);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === "EAGAIN") break;
            throw err;
          }
          if (n <= 0) break;
          text += buf.toString("utf8", 0, n);
        }
        return text;
      };
      return {
        path: p,
        read,
        async until(wanted, ms = 20_000) {
          const end = Date.now() + ms;
          while (!read().includes(wanted) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
          return text;
        },
        close: () => fs.closeSync(fd),
      };
    },
  };
}
