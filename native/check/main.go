// check-front: a fresh `check`'s first step, native, so that what needs no Node answers in the time of a
// native tool. bin/mcp-code-quality runs it before Node (dist/native/check-front, built by `npm run build`
// where Go is installed): a check the warm daemon is asked for goes to the daemon (daemon.go), any other
// replays the answer the last run kept when nothing it read changed (replay.go). The git hook of
// `hook install pre-commit --daemon` runs it first too (`check-front hook pre-commit --daemon`). Whatever it cannot do
// itself, an error included, exits 75 having printed nothing, and the command line does it instead (the
// Node client of the daemon, the Node replayer, the check itself). Standard library only.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// Exit code meaning "not answered here" (MISS in src/check/answer/replay.ts).
const miss = 75

func main() {
	// A reader that went away (`check | head`) cuts the answer; the exit code stays the check's, as in Node.
	signal.Ignore(syscall.SIGPIPE)
	if len(os.Args) >= 3 && os.Args[1] == "hook" && os.Args[2] == "pre-commit" {
		daemon, rest := hookDaemonChoice(os.Args[3:])
		if !daemon {
			os.Exit(miss)
		}
		os.Exit(askDaemonPreCommit(rest))
	}
	if len(os.Args) < 2 || os.Args[1] != "check" {
		os.Exit(miss)
	}
	action, rest := daemonChoice(os.Args[2:])
	switch action {
	case "run":
		os.Exit(askDaemon(rest))
	case "off":
		os.Exit(replayMain(os.Args[2:]))
	default:
		// --daemon-stop and --daemon-status: the Node client's.
		os.Exit(miss)
	}
}

// daemonChoice is daemonChoice() of src/check/daemon/flags.ts: --daemon (or MCP_CODE_QUALITY_CHECK_DAEMON=1)
// "run", --no-daemon "off", --daemon-stop and --daemon-status their own; the last wins; help and joining
// shards' logs never go to the daemon. rest is the arguments without the daemon flags.
func daemonChoice(args []string) (string, []string) {
	action := "off"
	if os.Getenv("MCP_CODE_QUALITY_CHECK_DAEMON") == "1" {
		action = "run"
	}
	rest := []string{}
	for _, a := range args {
		switch a {
		case "--daemon":
			action = "run"
		case "--no-daemon":
			action = "off"
		case "--daemon-stop":
			action = "stop"
		case "--daemon-status":
			action = "status"
		default:
			rest = append(rest, a)
		}
	}
	if action == "run" {
		for _, a := range rest {
			if a == "--help" || a == "-h" || a == "--merge-sarif" {
				return "off", rest
			}
		}
	}
	return action, rest
}

// hookDaemonChoice is hookDaemonChoice() of src/check/daemon/flags.ts: --daemon (or
// MCP_CODE_QUALITY_CHECK_DAEMON=1) before the hook's own arguments, the last wins; the install's probe
// (MCP_CODE_QUALITY_HOOK_PROBE) never asks the daemon.
func hookDaemonChoice(args []string) (bool, []string) {
	daemon := os.Getenv("MCP_CODE_QUALITY_CHECK_DAEMON") == "1"
	i := 0
	for ; i < len(args) && (args[i] == "--daemon" || args[i] == "--no-daemon"); i++ {
		daemon = args[i] == "--daemon"
	}
	return daemon && os.Getenv("MCP_CODE_QUALITY_HOOK_PROBE") == "", args[i:]
}

// ownBuildID is the build's id (src/cache/build-id.ts): this is dist/native/check-front, the id is in
// dist/build-id.json.
func ownBuildID() (string, bool) {
	self, err := os.Executable()
	if err != nil {
		return "", false
	}
	return readBuildID(filepath.Join(filepath.Dir(self), "..", "build-id.json"))
}

func readBuildID(file string) (string, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	var v struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(data, &v) != nil || v.ID == "" {
		return "", false
	}
	return v.ID, true
}

// jsString is JSON.stringify of a string: what memoKey wrote. A string it would spell otherwise (a lone
// surrogate, invalid UTF-8) only makes another key: a miss.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// nodeOnPath is the Node bin/mcp-code-quality would run (`node` on PATH), resolved as process.execPath is.
func nodeOnPath() (string, bool) {
	found, err := exec.LookPath("node")
	if err != nil {
		return "", false
	}
	abs, err := filepath.Abs(found)
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(abs)
	return real, err == nil
}

type winsize struct{ Row, Col, X, Y uint16 }

// streamShape is streamsShape() of memo-format.ts for one descriptor: a terminal and its width, or "-".
func streamShape(fd uintptr) string {
	if !isTerminal(fd) {
		return "-"
	}
	return "tty:" + strconv.Itoa(columnsOf(fd))
}

func streamsShape() string { return streamShape(1) + "," + streamShape(2) }

// isTerminal is Node's stream.isTTY for a descriptor.
func isTerminal(fd uintptr) bool {
	var t syscall.Termios
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return e == 0
}

// columnsOf is a terminal's width (Node's stream.columns), 0 when it has none.
func columnsOf(fd uintptr) int {
	var ws winsize
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		return 0
	}
	return int(ws.Col)
}
