module github.com/mcp-code-quality/check-replay

go 1.22
