// The client of `check --daemon`, native: finds this environment's daemon as src/check/daemon/client.ts
// does (the same folder, secret and key), proves itself to it and checks its proof (auth.ts), hands it the
// arguments and copies its answer (protocol.ts). It only asks a daemon that runs: anything else (no daemon
// yet, a folder or secret not made, a listener that does not prove itself, a daemon of another build) is a
// miss, and the Node client, which starts daemons, says why and drops impostors, does it.
package main

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Every limit and name below is the Node client's (key.ts, daemon-dir.ts, session.ts, client.ts).
const (
	secretBytes   = 32
	maxSocketPath = 107
	helloWait     = 5 * time.Second
	lostMessage   = "mcp-code-quality check: the check daemon ended before it answered\n"
	lostCode      = 3
	// A hook's answer lost: the commit is refused, as by the Node client.
	preCommitLostMessage = "mcp-code-quality pre-commit failed, so the commit is refused: the daemon ended before it answered\n"
	preCommitLostCode    = 1
)

var nonceHex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// volatile are the variables keyedEnv() leaves out of the key.
var volatile = map[string]bool{
	"_": true, "PWD": true, "OLDPWD": true, "SHLVL": true, "COLUMNS": true, "LINES": true,
	"TERM_SESSION_ID": true, "WINDOWID": true,
	"MCP_CODE_QUALITY_CHECK_DAEMON": true, "MCP_CODE_QUALITY_CHECK_DAEMON_IDLE": true,
}

// askDaemon runs `check rest` in the daemon that runs for this environment: its exit code, or miss.
func askDaemon(rest []string) int {
	socket, secret, ok := locateDaemon(os.Environ())
	if !ok {
		return miss
	}
	ask := checkAsk{Type: "check", Argv: rest, StdoutTTY: isTerminal(1), StderrTTY: isTerminal(2)}
	if ask.StderrTTY {
		ask.Columns = columnsOf(2)
	}
	return exchange(socket, secret, func(cwd, build, proof string) any {
		ask.Cwd, ask.BuildID, ask.Proof = cwd, build, proof
		return ask
	}, lostMessage, lostCode)
}

// askDaemonPreCommit is preCommitThroughDaemon() of client.ts for `hook pre-commit rest`: the daemon of the
// environment without the variables git and the human set for this commit, which travel with the request.
func askDaemonPreCommit(rest []string) int {
	var shared []string
	perCommit := map[string]string{}
	for _, kv := range os.Environ() {
		name, value, found := strings.Cut(kv, "=")
		if !found {
			continue
		}
		if isPerCommitVar(name) {
			if _, seen := perCommit[name]; !seen {
				perCommit[name] = value
			}
		} else {
			shared = append(shared, kv)
		}
	}
	socket, secret, ok := locateDaemon(shared)
	if !ok {
		return miss
	}
	return exchange(socket, secret, func(cwd, build, proof string) any {
		return preCommitAsk{Type: "pre-commit", Argv: rest, Cwd: cwd, Env: perCommit, BuildID: build, Proof: proof}
	}, preCommitLostMessage, preCommitLostCode)
}

// isPerCommitVar is isPerCommitVar() of key.ts.
func isPerCommitVar(name string) bool {
	return strings.HasPrefix(name, "GIT_") || name == "MCQ_ALLOW_PROTECTED" || name == "MCP_CODE_QUALITY_HOOK_TIMINGS"
}

// locateDaemon is locate() of client.ts for a daemon that already runs in environ: its socket and secret.
func locateDaemon(environ []string) (string, []byte, bool) {
	// daemonUnfit(): a relative PATH entry (an empty one too) is the Node client's to report.
	for _, p := range strings.Split(os.Getenv("PATH"), ":") {
		if !filepath.IsAbs(p) {
			return "", nil, false
		}
	}
	build, ok := ownBuildID()
	if !ok {
		return "", nil, false
	}
	node, ok := nodeOnPath()
	if !ok {
		return "", nil, false
	}
	nodeID, ok := executableIdentity(node)
	if !ok {
		return "", nil, false
	}
	dir, ok := daemonDir()
	if !ok {
		return "", nil, false
	}
	secret, ok := readSecret(filepath.Join(dir, "secret"))
	if !ok {
		return "", nil, false
	}
	socket := filepath.Join(dir, "check-"+daemonKey(build, node, nodeID, os.Getuid(), environ)+".sock")
	if len(socket) > maxSocketPath {
		return "", nil, false
	}
	return socket, secret, true
}

// executableIdentity is executableIdentity() of key.ts: which Node file runs the daemon.
func executableIdentity(file string) (string, bool) {
	var st syscall.Stat_t
	if syscall.Stat(file, &st) != nil {
		return "", false
	}
	mtime := float64(st.Mtim.Sec)*1000 + float64(st.Mtim.Nsec)/1e6
	return strconv.FormatUint(st.Dev, 10) + ":" + strconv.FormatUint(st.Ino, 10) + ":" +
		strconv.FormatInt(st.Size, 10) + ":" + jsNumber(mtime), true
}

// daemonKey is daemonKey() of key.ts: the hash of the build, the Node, the user and the environment
// without what a shell changes between commands. A variable Node would decode or order otherwise (bytes
// that are not UTF-8, a name beyond the BMP) only makes another key: a miss.
func daemonKey(build, node, nodeID string, uid int, environ []string) string {
	seen := map[string]bool{}
	var names []string
	values := map[string]string{}
	for _, kv := range environ {
		name, value, found := strings.Cut(kv, "=")
		if !found || seen[name] {
			continue
		}
		seen[name] = true
		if volatile[name] {
			continue
		}
		names = append(names, name)
		values[name] = value
	}
	sort.Strings(names)
	pairs := make([]string, len(names))
	for i, n := range names {
		pairs[i] = "[" + jsString(n) + "," + jsString(values[n]) + "]"
	}
	text := "[" + jsString(build) + "," + jsString(node) + "," + jsString(nodeID) + "," +
		jsString(strconv.Itoa(uid)) + ",[" + strings.Join(pairs, ",") + "]]"
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])[:24]
}

// daemonDir is daemonDir() of daemon-dir.ts without making anything: the runtime folder's when usable,
// else the temp folder's; only a folder of this user that no one else may enter.
func daemonDir() (string, bool) {
	var dir string
	if xdg := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(xdg) && privateDir(xdg, false) {
		dir = filepath.Join(xdg, "mcp-code-quality")
	} else {
		dir = filepath.Join(nodeTmpdir(), "mcq-daemon-"+strconv.Itoa(os.Getuid()))
	}
	return dir, filepath.IsAbs(dir) && privateDir(dir, true)
}

// privateDir: a real folder (not a link) of this user, 0700 or tighter; through an fd when open.
func privateDir(dir string, open bool) bool {
	var st syscall.Stat_t
	if open {
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		defer syscall.Close(fd)
		if syscall.Fstat(fd, &st) != nil {
			return false
		}
	} else if syscall.Lstat(dir, &st) != nil {
		return false
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFDIR && int(st.Uid) == os.Getuid() && st.Mode&0o077 == 0
}

// nodeTmpdir is Node's os.tmpdir().
func nodeTmpdir() string {
	dir := "/tmp"
	for _, name := range []string{"TMPDIR", "TMP", "TEMP"} {
		if v := os.Getenv(name); v != "" {
			dir = v
			break
		}
	}
	if len(dir) > 1 && strings.HasSuffix(dir, "/") {
		dir = dir[:len(dir)-1]
	}
	return dir
}

// readSecret is readSecretFile() of daemon-dir.ts: a regular file of this user, 0600 or tighter, 32 bytes.
func readSecret(file string) ([]byte, bool) {
	fd, err := syscall.Open(file, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || int(st.Uid) != os.Getuid() ||
		st.Mode&0o077 != 0 {
		return nil, false
	}
	buf := make([]byte, secretBytes+1)
	n, err := syscall.Pread(fd, buf, 0)
	if err != nil || n != secretBytes {
		return nil, false
	}
	return buf[:secretBytes], true
}

// proofOf is proofOf() of auth.ts.
func proofOf(secret []byte, role, socketName, clientNonce, daemonNonce string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("[" + jsString("mcp-code-quality check daemon") + "," + jsString(role) + "," +
		jsString(socketName) + "," + jsString(clientNonce) + "," + jsString(daemonNonce) + "]"))
	return hex.EncodeToString(mac.Sum(nil))
}

// checkAsk is the "check" request of protocol.ts.
type checkAsk struct {
	Type      string   `json:"type"`
	Argv      []string `json:"argv"`
	Cwd       string   `json:"cwd"`
	StdoutTTY bool     `json:"stdoutTTY"`
	StderrTTY bool     `json:"stderrTTY"`
	Columns   int      `json:"columns,omitempty"`
	BuildID   string   `json:"buildId"`
	Proof     string   `json:"proof"`
}

// preCommitAsk is the "pre-commit" request of protocol.ts.
type preCommitAsk struct {
	Type    string            `json:"type"`
	Argv    []string          `json:"argv"`
	Cwd     string            `json:"cwd"`
	Env     map[string]string `json:"env"`
	BuildID string            `json:"buildId"`
	Proof   string            `json:"proof"`
}

// frame is what the daemon sends (DaemonFrame of protocol.ts), the fields a check's answer uses.
type frame struct {
	Hello *struct {
		Nonce string `json:"nonce"`
		Proof string `json:"proof"`
	} `json:"hello"`
	O     *string `json:"o"`
	E     *string `json:"e"`
	Exit  *int    `json:"exit"`
	Stale bool    `json:"stale"`
	// The daemon refuses a request that would weaken it (relax.ts): the Node client runs it itself.
	Refused *string `json:"refused"`
}

// exchange is exchange() of session.ts for one request, which request() makes from the working folder,
// the build and the client's proof: a miss unless the daemon proves itself and answers. A daemon that ends
// mid-answer is reported with lost and lostCode.
func exchange(socket string, secret []byte, request func(cwd, build, proof string) any, lost string, lostCode int) int {
	build, _ := ownBuildID()
	cwd, err := syscall.Getwd()
	if err != nil {
		return miss
	}
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return miss
	}
	defer conn.Close()
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return miss
	}
	nonce := hex.EncodeToString(raw)
	_ = conn.SetDeadline(time.Now().Add(helloWait))
	if _, err := conn.Write([]byte(`{"type":"hello","nonce":"` + nonce + `"}` + "\n")); err != nil {
		return miss
	}
	in := bufio.NewReaderSize(conn, 64<<10)
	line, err := in.ReadBytes('\n')
	var hello frame
	if err != nil || json.Unmarshal(line, &hello) != nil || hello.Hello == nil ||
		!nonceHex.MatchString(hello.Hello.Nonce) || !nonceHex.MatchString(hello.Hello.Proof) {
		return miss
	}
	name := filepath.Base(socket)
	want := proofOf(secret, "daemon", name, nonce, hello.Hello.Nonce)
	if !hmac.Equal([]byte(hello.Hello.Proof), []byte(want)) {
		return miss
	}
	line, err = json.Marshal(request(cwd, build, proofOf(secret, "client", name, nonce, hello.Hello.Nonce)))
	if err != nil {
		return miss
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return miss
	}
	// The check takes as long as it takes: no deadline once the daemon has it.
	_ = conn.SetDeadline(time.Time{})
	wrote := false
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			if wrote {
				os.Stderr.WriteString(lost)
				return lostCode
			}
			return miss
		}
		var f frame
		if json.Unmarshal(line, &f) != nil {
			continue
		}
		switch {
		case f.O != nil:
			wrote = true
			_, _ = os.Stdout.WriteString(*f.O)
		case f.E != nil:
			wrote = true
			_, _ = os.Stderr.WriteString(*f.E)
		case f.Exit != nil:
			return *f.Exit
		case f.Refused != nil && !wrote:
			return miss
		case f.Stale && !wrote:
			// A daemon of another build: the Node client checks in its own process.
			return miss
		}
	}
}
