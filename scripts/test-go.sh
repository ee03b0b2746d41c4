#!/usr/bin/env bash
# Go tests: vet, then every package. Test material from outside the project
# (csvkit's examples, Chinook, nyc.duckdb) is read from shared/datasets
# beside the repository, or from $LOUPE_SHARED_DATASETS.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${LOUPE_SHARED_DATASETS:-}" ]]; then
  for d in ../shared/datasets ../../shared/datasets; do
    if [[ -d $d ]]; then export LOUPE_SHARED_DATASETS=$(cd "$d" && pwd); break; fi
  done
fi
if [[ -z "${LOUPE_SHARED_DATASETS:-}" ]]; then
  echo "test-go: shared/datasets not found beside the repository; set LOUPE_SHARED_DATASETS" >&2
  exit 1
fi
# PostgreSQL and MariaDB on loopback for the remote-source suites (the tests
# would start them too; starting them here once keeps the packages' runs
# short). The newest installed PostgreSQL is used when 15 is absent.
if [[ -z "${LOUPE_PG_BIN:-}" && ! -x /usr/lib/postgresql/15/bin/initdb ]]; then
  pg=$(compgen -G '/usr/lib/postgresql/*/bin' | sort -V | tail -n 1 || true)
  [[ -n $pg ]] && export LOUPE_PG_BIN=$pg
fi
bash scripts/dbservers.sh start all >/dev/null
# The sandbox tests start a private Docker daemon (scripts/sandbox-image.sh)
# themselves; it is stopped at the end with the database servers.
trap 'bash scripts/dbservers.sh stop all >/dev/null 2>&1 || true; bash scripts/sandbox-image.sh stop >/dev/null 2>&1 || true' EXIT
tags=$(cat .cache/wails-tags 2>/dev/null || true)
echo "== go vet"
go vet ${tags:+-tags "$tags"} ./...
echo "== fault suite (small-model misbehaviour, both wire formats)"
mkdir -p .cache
st=0
go test ${tags:+-tags "$tags"} -count=1 -run '^TestFaultSuite$' -v ./app/assemble >.cache/fault-suite.log 2>&1 || st=$?
grep -E '^(fault suite|  missed)' .cache/fault-suite.log || true
if [[ $st != 0 ]]; then
  grep -v -E '^\s*$' .cache/fault-suite.log | tail -n 60 >&2
  echo "test-go: the fault suite failed (full output in .cache/fault-suite.log)" >&2
  exit 1
fi
echo "== go test"
go test ${tags:+-tags "$tags"} -count=1 -timeout 20m -skip '^TestFaultSuite$' ./...
