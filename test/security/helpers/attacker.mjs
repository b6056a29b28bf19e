// The adversary of the test/security race tests, run as its own process: it plants links, swaps folders
// for links to the outside, and kills the server at the moment a file changes. Prints one JSON line when done.
//   plant <target> <link>                               create the symlink <link> -> <target>
//   swap <link> <real> <outside> <ms> <file> <content>  swap <link> between the folder <real> (renamed
//        there and back) and a symlink to <outside> for <ms>; each time the folder is back, its <file>
//        is rewritten with <content>
//   kill-on-change <pid> <file>...                        poll the files' sizes; SIGKILL <pid> at the
//        first change; report every size seen
//   edit-when <process-pattern> <cwd> <file> <text>       once a process whose command line matches and
//        whose cwd is <cwd> runs, append <text> to <file>
import fs from "node:fs";
import path from "node:path";

const [mode, ...args] = process.argv.slice(2);
const done = (v) => {
  process.stdout.write(JSON.stringify(v) + "\n");
  process.exit(0);
};

if (mode === "plant") {
  const [target, link] = args;
  fs.symlinkSync(target, link);
  done({ planted: link });
}

if (mode === "swap") {
  const [link, real, outside, ms, file, content] = args;
  const until = Date.now() + Number(ms);
  let swaps = 0;
  const spin = (n) => {
    const t = Date.now() + n;
    while (Date.now() < t);
  };
  while (Date.now() < until) {
    fs.renameSync(link, real);
    fs.symlinkSync(outside, link);
    spin(1);
    fs.unlinkSync(link);
    fs.renameSync(real, link);
    fs.writeFileSync(path.join(link, file), content);
    spin(1);
    swaps++;
  }
  done({ swaps });
}

if (mode === "kill-on-change") {
  const [pid, ...files] = args;
  const first = new Map(files.map((f) => [f, fs.statSync(f)]));
  const seen = Object.fromEntries(files.map((f) => [f, new Set([first.get(f).size])]));
  // The caller starts the server's writes only after this line (startAttacker's ready): a baseline taken
  // after a write began would never see it change.
  process.stderr.write("ready\n");
  let killed = false;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    for (const f of files) {
      let st;
      try {
        st = fs.statSync(f);
      } catch {
        seen[f].add(-1);
        continue;
      }
      seen[f].add(st.size);
      const was = first.get(f);
      if (!killed && (st.ino !== was.ino || st.size !== was.size || st.mtimeMs !== was.mtimeMs)) {
        process.kill(Number(pid), "SIGKILL");
        killed = true;
      }
    }
    if (killed) break;
  }
  done({ killed, sizes: Object.fromEntries(Object.entries(seen).map(([f, s]) => [f, [...s]])) });
}

if (mode === "edit-when") {
  const [pattern, cwd, file, text] = args;
  const re = new RegExp(pattern);
  const deadline = Date.now() + 120_000;
  const running = () =>
    fs.readdirSync("/proc").some((p) => {
      if (!/^\d+$/.test(p)) return false;
      try {
        const cmd = fs.readFileSync(`/proc/${p}/cmdline`, "utf8").replace(/\0/g, " ");
        return re.test(cmd) && fs.readlinkSync(`/proc/${p}/cwd`) === cwd;
      } catch {
        return false;
      }
    });
  const poll = () => {
    if (running()) {
      fs.appendFileSync(file, text);
      done({ edited: true });
    }
    if (Date.now() > deadline) done({ edited: false });
    setTimeout(poll, 5);
  };
  poll();
}
