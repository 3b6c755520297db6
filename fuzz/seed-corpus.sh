#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ (libFuzzer's working corpus, not committed) with the seeds:
# the JSON fixtures of tests/fixtures for the body decoders, fuzz/seeds/<target>/ for the rest.
set -euo pipefail
cd "$(dirname "$0")"
fixtures=../tests/fixtures
for t in measurements_scanner measurements_serde measurements_differential model_pages model_objects; do
    mkdir -p "corpus/$t"
    cp "$fixtures"/*.json "$fixtures"/*.txt "corpus/$t/"
done
# API errors: two bytes of status, then the body.
mkdir -p corpus/api_error
for f in "$fixtures"/error-*.json; do
    code=$(basename "$f" | cut -d- -f2)
    { printf "\\x$(printf %02x $((code / 256)))\\x$(printf %02x $((code % 256)))"; cat "$f"; } \
        > "corpus/api_error/$(basename "$f")"
done
for t in digest_challenge iso_duration timestamps; do
    mkdir -p "corpus/$t"
    cp seeds/$t/* "corpus/$t/"
done
