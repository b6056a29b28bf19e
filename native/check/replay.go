// The replay of a kept answer: a fresh `check` whose last run of this command line in this folder kept its
// answer (src/check/answer/memo-format.ts: the format, and the meaning of every field), when every variable
// and every path it depends on is as it was, appends its audit entries again, prints its output and exits
// with its code. src/check/answer/replay.ts is the same replayer in Node, for a machine where this was not
// built. Anything else, an error included, is a miss: nothing printed.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"
)

// The memo format this replayer reads (MEMO_FORMAT in memo-format.ts).
const memoFormat = 3

type states map[string]string

// chunk is one [stream, text] of the memo's output (1: stdout, 2: stderr).
type chunk struct {
	stream int
	text   string
}

func (c *chunk) UnmarshalJSON(data []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(data, &pair); err != nil {
		return err
	}
	if len(pair) != 2 || json.Unmarshal(pair[0], &c.stream) != nil || json.Unmarshal(pair[1], &c.text) != nil ||
		(c.stream != 1 && c.stream != 2) {
		return errors.New("not an output chunk")
	}
	return nil
}

type memo struct {
	Format  int                `json:"format"`
	Key     string             `json:"key"`
	Node    string             `json:"node"`
	Env     map[string]*string `json:"env"`
	Streams string             `json:"streams"`
	// Each folder's deps, decoded when first looked at (folderDeps): a miss among the deps changed last
	// decodes only theirs, where decoding every folder's took ~3 of the ~4 ms of a miss on pylint's memo.
	Deps map[string]json.RawMessage `json:"deps"`
	// The deps changed last, [folder, name], looked at first (AnswerMemo.recent): a miss stops sooner.
	Recent [][2]string `json:"recent"`
	// Decoded for a replay only (outputChunks).
	Output json.RawMessage `json:"output"`
	Code   int             `json:"code"`
	Audit  *struct {
		File     string   `json:"file"`
		MaxBytes int64    `json:"maxBytes"`
		Lines    []string `json:"lines"`
	} `json:"audit"`
	decoded map[string]map[string]states
	chunks  []chunk
}

// folderDeps is the deps of folder `dir` by name; false when the memo's entry for it is not one.
func (m *memo) folderDeps(dir string) (map[string]states, bool) {
	if known, ok := m.decoded[dir]; ok {
		return known, known != nil
	}
	var names map[string]states
	raw, ok := m.Deps[dir]
	if ok && json.Unmarshal(raw, &names) != nil {
		names = nil
	}
	if m.decoded == nil {
		m.decoded = map[string]map[string]states{}
	}
	m.decoded[dir] = names
	return names, names != nil
}

// outputChunks is the memo's output, decoded; false when it is not a list of chunks.
func (m *memo) outputChunks() ([]chunk, bool) {
	var chunks []chunk
	return chunks, json.Unmarshal(m.Output, &chunks) == nil
}

// replayMain replays the kept answer of `check args`; its exit code, or miss.
func replayMain(args []string) int {
	mode := os.Getenv("MCP_CODE_QUALITY_CHECK_REPLAY")
	explain := mode == "explain"
	var m *memo
	why := "replay turned off"
	if mode != "0" && mode != "false" {
		m, why = replayable(args)
	}
	if m == nil {
		if explain {
			fmt.Fprintf(os.Stderr, "mcp-code-quality check: no replay: %s\n", why)
		}
		return miss
	}
	if explain {
		fmt.Fprintln(os.Stderr, "mcp-code-quality check: replayed")
	}
	return replay(m)
}

func replayable(args []string) (*memo, string) {
	buildID, ok := ownBuildID()
	if !ok {
		return nil, "no build id"
	}
	// The physical folder, as Node's process.cwd() (os.Getwd would answer $PWD's spelling).
	cwd, err := syscall.Getwd()
	if err != nil {
		return nil, "no working folder"
	}
	key := memoKey(buildID, os.Getuid(), cwd, args)
	dir, ok := answersDir()
	if !ok {
		return nil, "nothing kept"
	}
	text, ok := readMemoFile(filepath.Join(dir, memoName(key)))
	if !ok {
		return nil, "nothing kept"
	}
	var m memo
	if json.Unmarshal(text, &m) != nil || m.Format != memoFormat || m.Key != key || (m.Code != 0 && m.Code != 1) {
		return nil, "nothing kept"
	}
	if node, ok := nodeOnPath(); !ok || node != m.Node {
		return nil, "another Node: " + m.Node
	}
	if streamsShape() != m.Streams {
		return nil, "other output streams"
	}
	if changed := firstChanged(&m); changed != "" {
		return nil, "changed: " + changed
	}
	chunks, ok := m.outputChunks()
	if !ok {
		return nil, "nothing kept"
	}
	m.chunks = chunks
	return &m, ""
}

// memoKey is memoKey() of memo-format.ts: JSON.stringify([format, buildId, uid, cwd, argv]).
func memoKey(buildID string, uid int, cwd string, args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = jsString(a)
	}
	return fmt.Sprintf("[%d,%s,%d,%s,[%s]]", memoFormat, jsString(buildID), uid, jsString(cwd), strings.Join(parts, ","))
}

// memoName is memoName() of memo-format.ts: two 32-bit FNV-1a hashes over the key's UTF-16 code units.
func memoName(key string) string {
	units := utf16.Encode([]rune(key))
	a := uint32(0x811c9dc5)
	b := uint32(0x01000193) ^ uint32(len(units))
	for _, c := range units {
		a = (a ^ uint32(c)) * 0x01000193
		b = ((b ^ uint32(c)) * 0x01000193) ^ (b >> 13)
	}
	return fmt.Sprintf("%08x%08x.json", a, b)
}

func answersDir() (string, bool) {
	base := os.Getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(base) {
		home := os.Getenv("HOME")
		if home == "" {
			return "", false
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "mcp-code-quality", "answers"), true
}

// readMemoFile reads the memo without following a link, only when this user owns it and nobody else may
// write it (its output is printed as the answer).
func readMemoFile(file string) ([]byte, bool) {
	fd, err := syscall.Open(file, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), file)
	defer f.Close()
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Mode&0o022 != 0 ||
		int(st.Uid) != os.Getuid() {
		return nil, false
	}
	data, err := io.ReadAll(f)
	return data, err == nil
}

// errnoNames are the codes Node's errors carry, for the states a look that failed records.
var errnoNames = map[syscall.Errno]string{
	syscall.ENOENT: "ENOENT", syscall.ENOTDIR: "ENOTDIR", syscall.EACCES: "EACCES", syscall.ELOOP: "ELOOP",
	syscall.ENAMETOOLONG: "ENAMETOOLONG", syscall.EPERM: "EPERM", syscall.EINVAL: "EINVAL", syscall.EIO: "EIO",
}

func errState(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if name, ok := errnoNames[errno]; ok {
			return "!" + name
		}
	}
	return "!ERR"
}

// jsNumber prints a double as Number.prototype.toString does for these values (integers, and times in ms
// with their fraction: the shortest spelling that reads back the same).
func jsNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// statState is memo-format.ts's statState of node's Stats: times in ms computed as node does
// (sec * 1000 + nsec / 1e6, in doubles).
func statState(st *syscall.Stat_t) string {
	ms := func(t syscall.Timespec) float64 { return float64(t.Sec)*1000 + float64(t.Nsec)/1e6 }
	return strconv.FormatUint(st.Dev, 10) + ":" + strconv.FormatUint(st.Ino, 10) + ":" +
		strconv.FormatUint(uint64(st.Mode), 10) + ":" + strconv.FormatInt(st.Size, 10) + ":" +
		jsNumber(ms(st.Mtim)) + ":" + jsNumber(ms(st.Ctim))
}

func depState(file, kind string) string {
	if kind == "r" {
		real, err := realpath(file)
		if err != nil {
			return errState(err)
		}
		return real
	}
	var st syscall.Stat_t
	var err error
	if kind == "l" {
		err = syscall.Lstat(file, &st)
	} else {
		err = syscall.Stat(file, &st)
	}
	if err != nil {
		return errState(err)
	}
	return statState(&st)
}

// realpath resolves as realpath(3) (node's realpathSync.native): every link, the result absolute.
func realpath(file string) (string, error) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}

func holds(file string, s states) bool {
	if l, ok := s["l"]; ok && depState(file, "l") != l {
		return false
	}
	if st, ok := s["s"]; ok && st != "=" && depState(file, "s") != st {
		return false
	}
	if r, ok := s["r"]; ok && depState(file, "r") != r {
		return false
	}
	return true
}

func firstChanged(m *memo) string {
	for name, want := range m.Env {
		got, set := os.LookupEnv(name)
		if (want == nil) == set || (want != nil && *want != got) {
			return "environment variable " + name
		}
	}
	for _, dep := range m.Recent {
		names, ok := m.folderDeps(dep[0])
		if !ok {
			return "the kept deps of " + dep[0]
		}
		if s, ok := names[dep[1]]; ok && !holds(depFile(dep[0], dep[1]), s) {
			return depFile(dep[0], dep[1])
		}
	}
	for dir := range m.Deps {
		names, ok := m.folderDeps(dir)
		if !ok {
			return "the kept deps of " + dir
		}
		for name, s := range names {
			if !holds(depFile(dir, name), s) {
				return depFile(dir, name)
			}
		}
	}
	return ""
}

// depFile is the path of the dep `name` of folder `dir` ("" for the folder itself).
func depFile(dir, name string) string {
	if name == "" {
		return dir
	}
	return filepath.Join(dir, name)
}

// appendAudit is AuditLog's write (src/engine/audit-log.ts): the folder owner-only, the file rotated to
// <file>.1 beyond its size, the line appended to a file made owner-only.
func appendAudit(file string, maxBytes int64, line string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	if st, err := os.Stat(file); err == nil && st.Size() > 0 && st.Size()+int64(len(line)) > maxBytes {
		if err := os.Rename(file, file+".1"); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(line)
	return err
}

func replay(m *memo) int {
	if m.Audit != nil {
		// Node's new Date().toISOString().
		now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
		for _, line := range m.Audit.Lines {
			// The audit log never fails the answer (as a tool call's entry never fails the call).
			_ = appendAudit(m.Audit.File, m.Audit.MaxBytes, `{"timestamp":"`+now+`",`+line+"\n")
		}
	}
	for _, c := range m.chunks {
		out := os.Stdout
		if c.stream == 2 {
			out = os.Stderr
		}
		_, _ = out.WriteString(c.text)
	}
	return m.Code
}
