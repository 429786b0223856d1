#!/usr/bin/env bash
# Runs the C test binaries; each prints "<name>: N passed, N failed".
set -uo pipefail
passed=0; failed=0; broken=()
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    echo "$out" | tail -n 20
    line=$(echo "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -1)
    p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    if [ $rc -ne 0 ] || [ -z "$line" ]; then broken+=("$(basename "$t") (exit $rc)"); fi
done
echo "C tests: $passed passed, $failed failed"
if [ ${#broken[@]} -gt 0 ]; then echo "failing: ${broken[*]}"; exit 1; fi
