#!/usr/bin/env bash
# Runs the fuzz targets one after the other (one job at a time, nice 15): RUNS executions
# each (default 10^7) or MAX_TIME seconds, whichever comes first. Prints one line per target:
# name, executions, seconds, and whether libFuzzer stopped on a finding (then see
# artifacts/<target>/ and logs/<target>.log).
#
#   fuzz/run-all.sh                      # every target
#   TARGETS="timestamps iso_duration" RUNS=100000 fuzz/run-all.sh
set -uo pipefail
cd "$(dirname "$0")"
# fuzz/target only: these builds have their own flags, and in a shared target dir they would
# rebuild every dependency.
unset CARGO_TARGET_DIR
RUNS=${RUNS:-10000000}
MAX_TIME=${MAX_TIME:-3600}
TARGETS=${TARGETS:-"timestamps iso_duration digest_challenge api_error model_objects model_pages measurements_scanner measurements_serde measurements_differential"}
./seed-corpus.sh
mkdir -p logs
for t in $TARGETS; do
    case $t in
        measurements_* | model_*) max_len=65536 ;;
        api_error) max_len=4096 ;;
        *) max_len=512 ;;
    esac
    start=$(date +%s)
    nice -n 15 cargo +nightly fuzz run -s none -a "$t" -- -runs="$RUNS" \
        -max_total_time="$MAX_TIME" -max_len="$max_len" -print_final_stats=1 \
        > "logs/$t.log" 2>&1
    rc=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$')
    found=no
    [ "$rc" -ne 0 ] && found="yes (exit $rc)"
    printf '%s\t%s\t%ss\tfinding: %s\n' "$t" "${execs:-?}" "$(($(date +%s) - start))" "$found"
done
