#!/usr/bin/env bash
# Study-store throughput on both backends, in one run: claims per second and store time per trial
# with 1, 4 and 8 worker processes sharing one store (bench_store_backends), on a SQLite file and
# on a PostgreSQL server this script starts for the run (Debian's postgresql, a Unix socket,
# the server's default durability: fsync and synchronous_commit on). Two loads: a trial cycle of
# claim + 20 eval rows + heartbeat + finish, and claim + finish alone (the claim path's limit).
#
#   bench/store/store_backends.sh [BUILD_DIR=build] [OUT_DIR=runs/bench-store-backends]
#   env: WORKERS ("1 4 8"), TRIALS (100 per worker), PG_BINDIR (/usr/lib/postgresql/*/bin),
#        PG_SETTINGS (extra server settings, e.g. "-c synchronous_commit=off": SQLite's WAL with
#        synchronous=NORMAL does not wait for the disk at each commit either)
set -euo pipefail
BUILD_DIR=${1:-build}
OUT_DIR=$(mkdir -p "${2:-runs/bench-store-backends}" && cd "${2:-runs/bench-store-backends}" && pwd)
WORKERS=${WORKERS:-"1 4 8"}
TRIALS=${TRIALS:-100}
BENCH=$BUILD_DIR/bench/bench_store_backends
[[ -x $BENCH ]] || { echo "store_backends.sh: $BENCH not found; build it first" >&2; exit 2; }
PG_BINDIR=${PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}
[[ -x $PG_BINDIR/initdb ]] || { echo "store_backends.sh: no PostgreSQL server binaries (apt install postgresql)" >&2; exit 2; }

# The server: as the postgres user when run as root (initdb refuses root).
PG_DIR=$(mktemp -d /tmp/pacer_bench_pg_XXXXXX)
as_server() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- sh -c "$1"; else sh -c "$1"; fi; }
[[ $(id -u) -eq 0 ]] && chown postgres "$PG_DIR"
as_server "$PG_BINDIR/initdb -D $PG_DIR/data -U pacer --auth=trust -E UTF8 --locale=C >$PG_DIR/initdb.log 2>&1"
as_server "$PG_BINDIR/pg_ctl -D $PG_DIR/data -w -l $PG_DIR/server.log -o \"-k $PG_DIR -c listen_addresses='' -p 5432 ${PG_SETTINGS:-}\" start >/dev/null"
trap 'as_server "$PG_BINDIR/pg_ctl -D $PG_DIR/data -w -m fast stop >/dev/null" || true; rm -rf "$PG_DIR"' EXIT
pg_uri() { echo "postgresql://pacer@/$1?host=$PG_DIR&port=5432"; }

: >"$OUT_DIR/results.jsonl"
run=0
for evals in 20 0; do
  for workers in $WORKERS; do
    for backend in sqlite postgresql; do
      run=$((run + 1))
      if [[ $backend == sqlite ]]; then
        location=$OUT_DIR/bench_$run.db
        rm -f "$location" "$location-wal" "$location-shm"
      else
        "$PG_BINDIR/psql" -q -X "$(pg_uri postgres)" -c "CREATE DATABASE bench_$run" >/dev/null
        location=$(pg_uri "bench_$run")
      fi
      "$BENCH" "$location" "$workers" "$TRIALS" "$evals" | tee -a "$OUT_DIR/results.jsonl"
      [[ $backend == sqlite ]] && rm -f "$location" "$location-wal" "$location-shm"
    done
  done
done

/usr/bin/python3 - "$OUT_DIR/results.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print()
print(f"{'evals/trial':>11} {'workers':>7} {'backend':>10} {'trials/s':>9} {'claim ms':>9} {'store ms/trial':>15}")
for r in rows:
    print(f"{r['evals_per_trial']:>11} {r['workers']:>7} {r['backend']:>10} {r['trials_per_s']:>9.1f} "
          f"{r['claim_ms_mean']:>9.3f} {r['store_ms_per_trial']:>15.3f}")
PY
echo "store_backends.sh: results in $OUT_DIR/results.jsonl"
