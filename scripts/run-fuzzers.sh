#!/usr/bin/env bash
# Runs each libFuzzer harness for SECS seconds, FUZZ_JOBS at a time
# (default: the machine's cores; each harness is single-threaded and has
# its own corpus and output folder), then shows each one's stats in the
# order given.  Usage: run-fuzzers.sh BUILD SECS HARNESS...
# Exit 1 with the harness's log tail when one finds a crash or fails.
set -uo pipefail
if [ $# -lt 3 ] || ! [[ $2 =~ ^[0-9]+$ ]]; then
    echo "usage: run-fuzzers.sh BUILD SECS HARNESS... (SECS a whole number)" >&2; exit 2
fi
build=$1; secs=$2; shift 2
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
for h in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    mkdir -p "$build/fuzz/found-$h"
    ( "$build/fuzz/$h" -max_total_time="$secs" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
          -artifact_prefix="$build/fuzz/" "$build/fuzz/found-$h" "tests/fuzz/corpus/$h" \
          2>"$build/fuzz/$h.log"; echo $? > "$build/fuzz/$h.rc" ) &
done
wait
failed=0
for h in "$@"; do
    echo "  $h: $secs s"
    if [ "$(cat "$build/fuzz/$h.rc" 2>/dev/null || echo 1)" -ne 0 ]; then
        tail -40 "$build/fuzz/$h.log"
        failed=1
        continue
    fi
    grep -E 'stat::number_of_executed_units|stat::new_units_added' "$build/fuzz/$h.log" | sed 's/^/    /'
done
exit $failed
