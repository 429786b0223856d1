#!/usr/bin/env bash
# Runs the C test binaries, CTEST_JOBS at a time (default: the machine's
# cores; each test is deterministic and single-threaded, on virtual time,
# with its own files), and shows each one's last lines in the order given.
# Each prints "<name>: N passed, N failed".
set -uo pipefail
jobs=${CTEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for t in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    ( "$t" > "$tmp/$i.out" 2>&1; echo $? > "$tmp/$i.rc" ) &
    i=$((i + 1))
done
wait
passed=0; failed=0; broken=()
i=0
for t in "$@"; do
    out=$(cat "$tmp/$i.out"); rc=$(cat "$tmp/$i.rc" 2>/dev/null || echo 1)
    i=$((i + 1))
    echo "$out" | tail -n 20
    line=$(echo "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -1)
    p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    if [ "$rc" -ne 0 ] || [ -z "$line" ]; then broken+=("$(basename "$t") (exit $rc)"); fi
done
echo "C tests: $passed passed, $failed failed"
if [ ${#broken[@]} -gt 0 ]; then echo "failing: ${broken[*]}"; exit 1; fi
