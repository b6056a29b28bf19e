/** Registers the Go adapters: gofmt and golangci-lint fmt, go vet / staticcheck / golint / golangci-lint (and its --fix), go build (type_check), go test. */
import "./gofmt.js";
import "./golangci-fmt.js";
import "./go-lint.js";
import "./golangci-lint.js";
import "./golangci-fix.js";
import "./go-build.js";
import "./go-test.js";
import "./gosec.js";
