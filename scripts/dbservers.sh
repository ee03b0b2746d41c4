#!/usr/bin/env bash
# Private PostgreSQL 15 and MariaDB servers on loopback for the remote-source
# tests, each loaded with the Chinook demo database and given a read-only
# role. PostgreSQL offers TLS with a self-signed certificate; MariaDB offers
# none, so both kinds of TLS failure can be tested. Idempotent: a server already running in the folder is reused, and
# Chinook is loaded only once.
#
#   scripts/dbservers.sh start [pg|mysql|all]    start (or reuse); prints KEY=VALUE lines
#   scripts/dbservers.sh stop [pg|mysql|all]
#   scripts/dbservers.sh restart pg|mysql         stop and start again (drops every connection)
#   scripts/dbservers.sh env                      print KEY=VALUE lines only
#
# The folder is $LOUPE_DBSERVERS_DIR (default /tmp/loupe-dbservers-$UID);
# ports $LOUPE_PG_PORT (5433) and $LOUPE_MYSQL_PORT (3307). The passwords are
# fixed test passwords: the servers listen on 127.0.0.1 only.
# Chinook's dumps come from the repository (testdata/chinook, with their
# source and licence). MariaDB is installed with apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

W=${LOUPE_DBSERVERS_DIR:-/tmp/loupe-dbservers-$(id -u)}
PG_PORT=${LOUPE_PG_PORT:-5433}
MY_PORT=${LOUPE_MYSQL_PORT:-3307}
PG_BIN=${LOUPE_PG_BIN:-/usr/lib/postgresql/15/bin}
ADMIN_PW=loupe-admin-pw
RO_PW=loupe-ro-pw

log() { echo "dbservers: $*" >&2; }
die() { log "$*"; exit 1; }

# find_chinook prints the folder of Chinook's PostgreSQL and MySQL dumps.
find_chinook() {
  local d=$PWD/testdata/chinook
  [[ -f $d/Chinook_PostgreSql.sql && -f $d/Chinook_MySql.sql ]] ||
    die "Chinook dumps missing from $d: restore them with git checkout -- testdata/chinook"
  echo "$d"
}

# run_as USER CMD...: as root, run as the service's own user; otherwise as us.
run_as() {
  local user=$1; shift
  if [[ $(id -u) == 0 ]]; then runuser -u "$user" -- "$@"; else "$@"; fi
}

own() { # own USER PATH: hand a folder to the service user when we are root
  if [[ $(id -u) == 0 ]]; then chown -R "$1:$1" "$2"; fi
}

# ---------------------------------------------------------------- PostgreSQL

pg_user() { if [[ $(id -u) == 0 ]]; then echo postgres; else id -un; fi; }
psql_admin() { run_as "$(pg_user)" "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$W/pg" -p "$PG_PORT" -U postgres "$@"; }

pg_running() { run_as "$(pg_user)" "$PG_BIN/pg_ctl" -D "$W/pg/data" status >/dev/null 2>&1; }

pg_start() {
  [[ -x $PG_BIN/initdb ]] || die "PostgreSQL 15 not found in $PG_BIN (apt-get install postgresql-15)"
  mkdir -p "$W/pg"
  chmod 755 "$W"
  own "$(pg_user)" "$W/pg"
  if [[ ! -f $W/pg/data/PG_VERSION ]]; then
    log "initdb in $W/pg/data"
    echo "$ADMIN_PW" >"$W/pg/pwfile"
    own "$(pg_user)" "$W/pg/pwfile"
    run_as "$(pg_user)" "$PG_BIN/initdb" -D "$W/pg/data" -U postgres --auth-local=trust \
      --auth-host=scram-sha-256 --pwfile="$W/pg/pwfile" --no-sync >"$W/pg/initdb.log" 2>&1 ||
      die "initdb failed: see $W/pg/initdb.log"
    rm -f "$W/pg/pwfile"
  fi
  if [[ ! -f $W/pg/server.key ]]; then
    # A self-signed certificate: TLS works, but verify-full must fail.
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=loupe-test-server" \
      -keyout "$W/pg/server.key" -out "$W/pg/server.crt" >/dev/null 2>&1 || die "openssl could not make a test certificate"
    chmod 600 "$W/pg/server.key"
    own "$(pg_user)" "$W/pg"
  fi
  if ! pg_running; then
    log "starting PostgreSQL on 127.0.0.1:$PG_PORT (TLS with a self-signed certificate)"
    run_as "$(pg_user)" "$PG_BIN/pg_ctl" -D "$W/pg/data" -l "$W/pg/log" \
      -o "-p $PG_PORT -k $W/pg -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 -c ssl=on -c ssl_cert_file=$W/pg/server.crt -c ssl_key_file=$W/pg/server.key" \
      -w start >/dev/null 9>&- || die "PostgreSQL did not start: see $W/pg/log"
  fi
  pg_load
}

pg_load() {
  if [[ $(psql_admin -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'chinook'") != 1 ]]; then
    log "loading Chinook into PostgreSQL"
    local dump
    dump=$(find_chinook)/Chinook_PostgreSql.sql
    psql_admin -d postgres -c "CREATE DATABASE chinook_loading"
    # The dump drops, creates and enters its database itself: leave that out.
    grep -v -E '^(DROP DATABASE|CREATE DATABASE|\\c )' "$dump" | psql_admin -d chinook_loading >/dev/null
    psql_admin -d chinook_loading -c "ANALYZE"
    psql_admin -d postgres -c "ALTER DATABASE chinook_loading RENAME TO chinook"
  fi
  psql_admin -d chinook >/dev/null <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'loupe_ro') THEN
    CREATE ROLE loupe_ro LOGIN PASSWORD '$RO_PW';
  END IF;
END \$\$;
ALTER ROLE loupe_ro SET default_transaction_read_only = on;
GRANT CONNECT ON DATABASE chinook TO loupe_ro;
GRANT USAGE ON SCHEMA public TO loupe_ro;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO loupe_ro;
COMMENT ON TABLE public.track IS 'One row per song; prices in USD';
COMMENT ON COLUMN public.track.milliseconds IS 'Length of the song';
SQL
}

pg_stop() {
  if [[ -f $W/pg/data/PG_VERSION ]] && pg_running; then
    log "stopping PostgreSQL"
    run_as "$(pg_user)" "$PG_BIN/pg_ctl" -D "$W/pg/data" -m fast -w stop >/dev/null
  fi
}

# ------------------------------------------------------------------- MariaDB

my_user() { if [[ $(id -u) == 0 ]]; then echo mysql; else id -un; fi; }
my_sock() { echo "$W/mysql-run/mysqld.sock"; }
mysql_root() { mariadb --protocol=socket --socket="$(my_sock)" -uroot "$@"; }
my_running() { mariadb-admin --protocol=socket --socket="$(my_sock)" -uroot ping >/dev/null 2>&1; }

my_start() {
  if ! command -v mariadbd >/dev/null; then
    [[ $(id -u) == 0 ]] || die "MariaDB is not installed: apt-get install mariadb-server mariadb-client"
    log "installing MariaDB (about 40 s)"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q \
      mariadb-server mariadb-client >"$W/apt-mariadb.log" 2>&1 || die "apt-get failed: see $W/apt-mariadb.log"
  fi
  mkdir -p "$W/mysql-data" "$W/mysql-run"
  chmod 755 "$W"
  own "$(my_user)" "$W/mysql-data"
  own "$(my_user)" "$W/mysql-run"
  if [[ ! -d $W/mysql-data/mysql ]]; then
    log "mariadb-install-db in $W/mysql-data"
    mariadb-install-db --user="$(my_user)" --datadir="$W/mysql-data" --auth-root-authentication-method=socket \
      --skip-test-db >"$W/mysql-install.log" 2>&1 || die "mariadb-install-db failed: see $W/mysql-install.log"
  fi
  if ! my_running; then
    log "starting MariaDB on 127.0.0.1:$MY_PORT"
    setsid mariadbd --no-defaults --user="$(my_user)" --datadir="$W/mysql-data" --socket="$(my_sock)" \
      --port="$MY_PORT" --bind-address=127.0.0.1 --skip-name-resolve --pid-file="$W/mysql-run/mysqld.pid" \
      --log-error="$W/mysql.log" --innodb-flush-log-at-trx-commit=0 </dev/null >/dev/null 2>&1 9>&- &
    local i
    for i in $(seq 1 100); do
      my_running && break
      sleep 0.2
    done
    my_running || die "MariaDB did not start: see $W/mysql.log"
  fi
  my_load
}

my_load() {
  if [[ -z $(mysql_root -N -e "SHOW DATABASES LIKE 'Chinook'") ]]; then
    log "loading Chinook into MariaDB"
    mysql_root <"$(find_chinook)/Chinook_MySql.sql"
    mysql_root -e "ANALYZE TABLE Chinook.Track, Chinook.InvoiceLine" >/dev/null
  fi
  mysql_root <<SQL
CREATE USER IF NOT EXISTS 'loupe_admin'@'%' IDENTIFIED BY '$ADMIN_PW';
GRANT ALL PRIVILEGES ON *.* TO 'loupe_admin'@'%';
CREATE USER IF NOT EXISTS 'loupe_ro'@'%' IDENTIFIED BY '$RO_PW';
GRANT SELECT, SHOW VIEW ON Chinook.* TO 'loupe_ro'@'%';
ALTER TABLE Chinook.Track COMMENT = 'One row per song; prices in USD';
FLUSH PRIVILEGES;
SQL
}

my_stop() {
  local pidf=$W/mysql-run/mysqld.pid
  if [[ -f $pidf ]] && my_running; then
    log "stopping MariaDB"
    local pid
    pid=$(cat "$pidf")
    kill "$pid"
    local i
    for i in $(seq 1 150); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
  fi
}

# ---------------------------------------------------------------------------

print_env() {
  cat <<EOF
LOUPE_DBSERVERS_DIR=$W
LOUPE_PG_HOST=127.0.0.1
LOUPE_PG_PORT=$PG_PORT
LOUPE_PG_DATABASE=chinook
LOUPE_PG_ADMIN_USER=postgres
LOUPE_PG_ADMIN_PASSWORD=$ADMIN_PW
LOUPE_PG_RO_USER=loupe_ro
LOUPE_PG_RO_PASSWORD=$RO_PW
LOUPE_MYSQL_HOST=127.0.0.1
LOUPE_MYSQL_PORT=$MY_PORT
LOUPE_MYSQL_DATABASE=Chinook
LOUPE_MYSQL_ADMIN_USER=loupe_admin
LOUPE_MYSQL_ADMIN_PASSWORD=$ADMIN_PW
LOUPE_MYSQL_RO_USER=loupe_ro
LOUPE_MYSQL_RO_PASSWORD=$RO_PW
EOF
}

cmd=${1:-start}
which=${2:-all}
mkdir -p "$W"
# One caller at a time per folder: tests in several packages start the
# servers at once. The servers started below must not inherit the lock.
exec 9>"$W/.lock"
flock 9
case $cmd in
start)
  case $which in pg) pg_start ;; mysql) my_start ;; all) pg_start; my_start ;; *) die "start pg|mysql|all" ;; esac
  print_env
  ;;
stop)
  case $which in pg) pg_stop ;; mysql) my_stop ;; all) pg_stop; my_stop ;; *) die "stop pg|mysql|all" ;; esac
  ;;
restart)
  case $which in pg) pg_stop; pg_start ;; mysql) my_stop; my_start ;; *) die "restart pg|mysql" ;; esac
  print_env
  ;;
env) print_env ;;
*) die "usage: $0 start|stop|restart|env [pg|mysql|all]" ;;
esac
