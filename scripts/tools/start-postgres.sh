#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server from Debian's package for the tests (installing the
# package if needed) and prints the URL to reach it. Stop it with scripts/tools/start-postgres.sh stop.
#   PROTEINAR_TEST_POSTGRES_URL=$(scripts/tools/start-postgres.sh) || exit 1   (not `export X=$(…)`: that hides a failure)
set -euo pipefail
DIR=${PROTEINAR_PG_DIR:-/tmp/proteinar-postgres}
PORT=${PROTEINAR_PG_PORT:-55432}
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

if [ "${1:-}" = stop ]; then
  B=$(bin_dir); [ -n "$B" ] && [ -d "$DIR/data" ] && as_postgres "$B/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
  exit 0
fi
if [ -z "$(bin_dir)" ]; then
  echo "installing postgresql (Debian)" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) >&2
fi
B=$(bin_dir)
if [ -d "$DIR/data" ]; then as_postgres "$B/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true; fi
rm -rf "$DIR"; mkdir -p "$DIR"
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
as_postgres "$B/initdb" -D "$DIR/data" -U postgres -A trust -E UTF8 >/dev/null
as_postgres "$B/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w \
  -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >&2
echo "postgres://postgres@127.0.0.1:$PORT/postgres"
