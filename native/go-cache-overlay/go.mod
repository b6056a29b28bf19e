module github.com/mcp-code-quality/go-cache-overlay

go 1.22
