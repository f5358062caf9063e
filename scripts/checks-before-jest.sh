#!/usr/bin/env bash
# The checks `npm test` runs before jest: the typecheck, the lint, the drift check of generated/,
# the spec lint, and the pinned Python tools and Node LTS build (`npm run test-tools`). tsc holds
# one core for most of this step while the others need little, so the typecheck runs beside
# them (its output shown when it ends) and the others run one after another as before. The step
# fails when the typecheck or any other check fails, once both have finished.
set -uo pipefail
cd "$(dirname "$0")/.."

typecheck_output="$(mktemp)"
trap 'rm -f "$typecheck_output"' EXIT
npm run typecheck >"$typecheck_output" 2>&1 &
typecheck=$!

npm run lint && npm run generate:check && npm run lint:spec && npm run test-tools
others=$?

wait "$typecheck"
typechecked=$?
cat "$typecheck_output"
[[ $typechecked -eq 0 && $others -eq 0 ]]
