// go-cache-overlay: a GOCACHEPROG program (cmd/go/internal/cacheprog's protocol, Go 1.24 and later) that
// gives the project code a test runs (a test that itself runs `go build`, `go run` or `go tool nm`) a build
// cache it can write without writing the one every project shares. It reads Go's shared build cache (read-only
// in the sandbox: another project's build must not read what this project's code wrote there), and keeps
// what the go command puts in a folder of this project's own, where its next run finds it. Before, such a run
// saw the shared cache read-only and failed where a run by hand passes: since Go 1.25 `go tool nm` builds nm
// into the cache first ("failed to initialize build cache ... read-only file system").
//
//	go-cache-overlay -shared DIR -own DIR
//
// Entries and outputs are kept in Go's own disk format (cmd/go/internal/cache): `<xx>/<action hex>-a` holds
// "v1 <action hex> <output hex> <size> <unix nano>\n", `<xx>/<output hex>-d` the output. Written to a
// temporary name and renamed into place, so two go commands of one project can share the folder. An entry
// of the shared cache that is not a plain file of its size (an executable's folder) is a miss: the go
// command builds it again. Standard library only.
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type request struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type response struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

const (
	hashSize = 32
	hexSize  = hashSize * 2
	// "v1 <hex id> <hex out> <size padded to 20> <unixnano padded to 20>\n"
	entrySize = 2 + 1 + hexSize + 1 + hexSize + 1 + 20 + 1 + 20 + 1
	// Entries of the own folder not used for this long are removed, at most once a day (as Go trims its own).
	trimAge      = 5 * 24 * time.Hour
	trimInterval = 24 * time.Hour
)

func main() {
	shared := flag.String("shared", "", "Go's shared build cache, read")
	own := flag.String("own", "", "this project's folder, read and written")
	flag.Parse()
	if *own == "" || !filepath.IsAbs(*own) || (*shared != "" && !filepath.IsAbs(*shared)) {
		fmt.Fprintln(os.Stderr, "go-cache-overlay: usage: go-cache-overlay -shared DIR -own DIR (absolute paths)")
		os.Exit(2)
	}
	if err := os.MkdirAll(*own, 0o700); err != nil {
		fmt.Fprintf(os.Stderr, "go-cache-overlay: %v\n", err)
		os.Exit(1)
	}
	trim(*own, time.Now())
	if err := serve(os.Stdin, os.Stdout, *shared, *own); err != nil {
		fmt.Fprintf(os.Stderr, "go-cache-overlay: %v\n", err)
		os.Exit(1)
	}
}

// serve answers the go command's requests until "close" or the end of its input.
func serve(in io.Reader, out io.Writer, shared, own string) error {
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	send := func(res response) error {
		if err := enc.Encode(res); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := send(response{ID: 0, KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	dec := json.NewDecoder(r)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		res := response{ID: req.ID}
		switch req.Command {
		case "get":
			res = get(req, shared, own)
		case "put":
			body, err := readBody(dec, req.BodySize)
			if err != nil {
				return err
			}
			res = put(req, body, own)
		case "close":
			return send(res)
		default:
			res.Err = "unknown command " + strconv.Quote(req.Command)
		}
		if err := send(res); err != nil {
			return err
		}
	}
}

// readBody reads the base64 JSON string that follows a put of BodySize > 0.
func readBody(dec *json.Decoder, size int64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	var body []byte
	if err := dec.Decode(&body); err != nil {
		return nil, fmt.Errorf("reading a put's body: %w", err)
	}
	if int64(len(body)) != size {
		return nil, fmt.Errorf("a put's body has %d bytes, not %d", len(body), size)
	}
	return body, nil
}

func fileName(dir string, id []byte, kind string) string {
	h := hex.EncodeToString(id)
	return filepath.Join(dir, h[:2], h+"-"+kind)
}

// get answers from the own folder first (what this project put), then from the shared cache.
func get(req request, shared, own string) response {
	if len(req.ActionID) != hashSize {
		return response{ID: req.ID, Err: "get: the action ID is not 32 bytes"}
	}
	for _, dir := range []string{own, shared} {
		if dir == "" {
			continue
		}
		if res, ok := lookup(dir, req.ActionID); ok {
			res.ID = req.ID
			return res
		}
	}
	return response{ID: req.ID, Miss: true}
}

// lookup reads an entry in Go's format and checks that its output is a plain file of its size.
func lookup(dir string, action []byte) (response, bool) {
	data, err := os.ReadFile(fileName(dir, action, "a"))
	if err != nil || len(data) != entrySize {
		return response{}, false
	}
	entry := string(data)
	if !strings.HasPrefix(entry, "v1 ") || entry[3+hexSize] != ' ' || entry[3+hexSize+1+hexSize] != ' ' ||
		entry[3+hexSize+1+hexSize+1+20] != ' ' || entry[entrySize-1] != '\n' {
		return response{}, false
	}
	if entry[3:3+hexSize] != hex.EncodeToString(action) {
		return response{}, false
	}
	output, err := hex.DecodeString(entry[4+hexSize : 4+2*hexSize])
	if err != nil {
		return response{}, false
	}
	size, err := strconv.ParseInt(strings.TrimLeft(entry[5+2*hexSize:25+2*hexSize], " "), 10, 64)
	if err != nil || size < 0 {
		return response{}, false
	}
	nano, err := strconv.ParseInt(strings.TrimLeft(entry[26+2*hexSize:46+2*hexSize], " "), 10, 64)
	if err != nil || nano < 0 {
		return response{}, false
	}
	path := fileName(dir, output, "d")
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() != size {
		return response{}, false
	}
	when := time.Unix(0, nano)
	return response{OutputID: output, Size: size, Time: &when, DiskPath: path}, true
}

// put keeps the body and its entry in the own folder.
func put(req request, body []byte, own string) response {
	if len(req.ActionID) != hashSize || len(req.OutputID) != hashSize {
		return response{ID: req.ID, Err: "put: an ID is not 32 bytes"}
	}
	path := fileName(own, req.OutputID, "d")
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() || info.Size() != int64(len(body)) {
		if err := writeFile(path, body, 0o600); err != nil {
			return response{ID: req.ID, Err: err.Error()}
		}
	}
	entry := fmt.Sprintf("v1 %x %x %20d %20d\n", req.ActionID, req.OutputID, len(body), time.Now().UnixNano())
	if err := writeFile(fileName(own, req.ActionID, "a"), []byte(entry), 0o600); err != nil {
		return response{ID: req.ID, Err: err.Error()}
	}
	return response{ID: req.ID, DiskPath: path}
}

// writeFile writes to a temporary name beside path (created exclusively) and renames it into place.
func writeFile(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(f.Name(), perm)
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

// trim removes the own folder's files not changed for trimAge, at most once per trimInterval (trim.txt).
func trim(own string, now time.Time) {
	mark := filepath.Join(own, "trim.txt")
	if info, err := os.Stat(mark); err == nil && now.Sub(info.ModTime()) < trimInterval {
		return
	}
	if writeFile(mark, []byte(strconv.FormatInt(now.Unix(), 10)+"\n"), 0o600) != nil {
		return
	}
	subdirs, err := os.ReadDir(own)
	if err != nil {
		return
	}
	for _, sub := range subdirs {
		if !sub.IsDir() || len(sub.Name()) != 2 {
			continue
		}
		dir := filepath.Join(own, sub.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			if info, err := f.Info(); err == nil && now.Sub(info.ModTime()) > trimAge {
				os.Remove(filepath.Join(dir, f.Name()))
			}
		}
	}
}
