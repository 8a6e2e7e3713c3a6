#!/usr/bin/env bash
# Validate the rate-limiter Prometheus rules and run their unit tests with promtool.
# Usage: bash ops/prometheus/check.sh   (from anywhere; exits non-zero on any failure)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

if ! command -v promtool >/dev/null 2>&1; then
  echo "check.sh: ERROR: promtool not found on PATH; it is needed to check ops/prometheus/rate-limiter-alerts.yml." >&2
  echo "check.sh: install the Debian package 'prometheus': apt-get install -y prometheus" >&2
  exit 1
fi

promtool --version 2>&1 | head -n 1
echo "== promtool check rules rate-limiter-alerts.yml"
promtool check rules rate-limiter-alerts.yml
echo "== promtool test rules rate-limiter-alerts.test.yml"
promtool test rules rate-limiter-alerts.test.yml
echo "check.sh: OK"
