module github.com/mcp-code-quality/check-front

go 1.22
