#!/usr/bin/env bash
# The Check step of action.yml: `check` with --github (job summary, annotations on the changed lines, step
# outputs) and --sarif. It never fails the step itself, so that the SARIF upload runs after findings; the
# action's Verdict step fails the job on the exit code recorded here.
set -uo pipefail
read -r -a paths <<<"${MCQ_PATHS:-.}"
read -r -a extra <<<"${MCQ_ARGS:-}"
[ "${#paths[@]}" -gt 0 ] || paths=(.)
sarif="${MCQ_SARIF:-${RUNNER_TEMP:-.}/mcp-code-quality.sarif}"
args=(check "${paths[@]}" --github --sarif "$sarif")
[ -z "${MCQ_HTML:-}" ] || args+=(--html "$MCQ_HTML")
rm -f -- "$sarif"
node "$GITHUB_ACTION_PATH/dist/cli.js" "${args[@]}" "${extra[@]}"
code=$?
# check --github wrote the outputs when it ran to the end; a usage error (exit 2) stops before that.
if ! grep -q '^exit-code=' "$GITHUB_OUTPUT" 2>/dev/null; then
  echo "exit-code=$code" >>"$GITHUB_OUTPUT"
  [ ! -f "$sarif" ] || echo "sarif=$sarif" >>"$GITHUB_OUTPUT"
fi
exit 0
