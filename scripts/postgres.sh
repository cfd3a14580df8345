#!/usr/bin/env bash
# A throw-away PostgreSQL server for Pulumi's `postgres://` DIY state backend, for the tests and CI.
#
#   url="$(bash scripts/postgres.sh start /tmp/pg)"   # prints only the URL on stdout
#   bash scripts/postgres.sh url /tmp/pg              # the URL again, while it runs
#   bash scripts/postgres.sh stop /tmp/pg             # stops it and deletes /tmp/pg
#   bash scripts/postgres.sh psql /tmp/pg [args…]     # psql as the superuser, in the `pulumi` database
#
# The URL has the form postgres://pulumi:<password>@127.0.0.1:<port>/pulumi?sslmode=disable.
#
# Why it is built this way:
# - Each caller gets its own cluster in its own directory, on a free port of 127.0.0.1, with its
#   unix socket inside that directory: parallel test runs never share state, never touch a system
#   cluster on 5432, and deleting the directory leaves nothing behind.
# - Stdout carries the URL and nothing else, so `url="$(… start …)"` works; all chatter goes to stderr.
# - The server is disposable, so durability is switched off (fsync, full_page_writes,
#   synchronous_commit): it starts and writes faster, and a crash only loses a test's state.
# - Authentication is `trust`, but the server listens on 127.0.0.1 only, so only this machine can
#   reach it. The role still gets a password so the URL looks like a real one.
# - PostgreSQL refuses to run as root. As root (CI, containers) the server runs as the `postgres`
#   system user that Debian's package creates; otherwise as the calling user.
# - If the server binaries are missing and apt-get exists, Debian's `postgresql` package is
#   installed, without letting it start (or keep) the system cluster it creates on port 5432.
#
# Environment: PG_BINDIR=<dir holding initdb, pg_ctl, psql> overrides the search for the binaries.
set -euo pipefail

# Everything this script and the tools it runs print goes to stderr; fd 3 is the real stdout,
# kept for the single line that callers capture.
exec 3>&1 1>&2

ROLE=pulumi
DB=pulumi
# Written into every directory that `start` creates; `stop` deletes (rm -rf, maybe as root) only
# directories that carry it.
MARKER=.postgres-sh-cluster

log() { echo "postgres.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }
usage() { die "usage: $0 start|stop|url <dir> | psql <dir> [psql arguments]"; }

is_root() { [[ "$(id -u)" -eq 0 ]]; }

# --- finding (or installing) the server binaries ----------------------------------------------

find_bindir() {
  if [[ -n "${PG_BINDIR:-}" ]]; then
    # An explicit choice is never second-guessed (nor "fixed" by installing a package).
    [[ -x "$PG_BINDIR/initdb" && -x "$PG_BINDIR/pg_ctl" ]] || die "PG_BINDIR=$PG_BINDIR holds no initdb/pg_ctl"
    echo "$PG_BINDIR"
    return 0
  fi
  # Debian/Ubuntu keep them per major version, off PATH; take the newest that has a server.
  local d best=""
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
    [[ -x "$d/initdb" && -x "$d/pg_ctl" && -x "$d/postgres" ]] && best="$d"
  done
  [[ -n "$best" ]] && { echo "$best"; return 0; }
  # Other systems (Homebrew, Fedora, …) put them on PATH.
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return 0
  fi
  return 1
}

# Cluster directories of Debian's postgresql-common, as "<version>/<name>", one a line.
debian_clusters() {
  [[ -d /etc/postgresql ]] || return 0
  (cd /etc/postgresql && find . -mindepth 2 -maxdepth 2 -type d | sed 's|^\./||' | sort)
}

install_server() {
  command -v apt-get >/dev/null 2>&1 \
    || die "no PostgreSQL server binaries found (initdb, pg_ctl) and no apt-get to install them; install PostgreSQL or set PG_BINDIR"
  local sudo=()
  if ! is_root; then
    command -v sudo >/dev/null 2>&1 || die "PostgreSQL server is missing; installing it needs root or sudo"
    sudo=(sudo -n)
  fi

  # Parallel test files may all call `start` at once on a fresh machine: one installs, the
  # others wait for it (and dpkg's own lock is waited on too, instead of failing at once).
  local lock=/tmp/.postgres-sh-install.lock
  if command -v flock >/dev/null 2>&1; then
    exec 7>>"$lock"
    flock 7
    if find_bindir >/dev/null; then exec 7>&-; return 0; fi
  fi

  log "PostgreSQL server binaries not found: installing Debian's postgresql package"
  local before after
  before="$(debian_clusters)"

  # The package's postinst creates a "main" cluster and runs `invoke-rc.d postgresql start`.
  # A policy-rc.d that answers 101 ("action forbidden") keeps invoke-rc.d from starting it; one
  # that is already there (Docker images ship one) is left alone and not removed.
  local policy=/usr/sbin/policy-rc.d made_policy=false
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\n# temporary: scripts/postgres.sh is installing postgresql and wants no service started\nexit 101\n' \
      | "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 755 "$policy"
    made_policy=true
    # shellcheck disable=SC2064 # expand now: the trap must remove exactly this file
    trap "${sudo[*]} rm -f '$policy'" EXIT
  fi

  # 3>&- 7>&- 8>&-: a service the package might start must not inherit our stdout or locks.
  apt_install() {
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      -o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0 postgresql 3>&- 7>&- 8>&-
  }
  # Only refresh the package lists when the install needs it: it is slow, and a machine's
  # lists are usually recent enough.
  if ! apt_install; then
    log "apt-get install failed; running apt-get update and trying again"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -o DPkg::Lock::Timeout=300 3>&- 7>&- 8>&-
    apt_install || die "apt-get install postgresql failed"
  fi

  if $made_policy; then "${sudo[@]}" rm -f "$policy"; trap - EXIT; fi

  # Drop the cluster(s) this install created (pg_dropcluster --stop also stops one that did get
  # started, e.g. where a policy-rc.d allowed it), so nothing is left listening on 5432.
  # Clusters that existed before are someone else's and are not touched.
  after="$(debian_clusters)"
  local c
  for c in $(comm -13 <(echo "$before") <(echo "$after")); do
    log "dropping the default cluster $c that the package created"
    "${sudo[@]}" pg_dropcluster --stop "${c%%/*}" "${c#*/}" 3>&- 7>&- 8>&- || log "warning: could not drop cluster $c"
  done

  exec 7>&-
  find_bindir >/dev/null || die "installed postgresql but still found no initdb/pg_ctl"
}

# --- running things as the server's owner -------------------------------------------------------

# Runs a command as the user who owns the cluster: `postgres` when we are root, else ourselves.
# It runs from / so that a cwd the postgres user cannot read (e.g. /root) does not make
# initdb/pg_ctl fail with "could not identify current directory".
as_owner() {
  if is_root; then
    if command -v runuser >/dev/null 2>&1; then
      (cd / && runuser -u postgres -- "$@")
    else
      (cd / && su -s /bin/bash postgres -c "$(printf '%q ' "$@")")
    fi
  else
    (cd / && "$@")
  fi
}

pg_running() { as_owner "$bindir/pg_ctl" status -D "$data" >/dev/null 2>&1; }

# psql as the superuser over TCP (trust): works for root too, and needs no socket path.
psql_admin() {
  "$psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"
}

# --- helpers for start -----------------------------------------------------------------------------

# A port the kernel says is free now. Another process could take it before the server binds
# it, so start_server retries with a fresh one when the bind fails.
free_port() {
  if command -v node >/dev/null 2>&1; then
    node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()'
  else
    echo $((20000 + RANDOM % 30000))
  fi
}

conf_quote() { local s=${1//\'/\'\'}; printf "'%s'" "$s"; }

# The settings that depend on the port live in their own file, included from postgresql.conf,
# so a retry on another port rewrites just that file.
write_port_conf() {
  local sockdir="$dir/run" sockets
  # A unix socket path may be at most 107 bytes; past that the server would not start, so a
  # long <dir> gets TCP only (everything here connects over TCP anyway).
  if (( ${#sockdir} + ${#port} + 10 <= 107 )); then
    sockets="$(conf_quote "$sockdir")"
  else
    log "note: $dir is too long a path for a unix socket; the server listens on TCP only"
    sockets="''"
  fi
  cat >"$data/postgres-sh.conf" <<EOF
# Written by scripts/postgres.sh: where this throw-away server listens.
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = $sockets
EOF
  is_root && chown postgres: "$data/postgres-sh.conf" || true
}

# Starts the server, choosing a new port when the chosen one turned out to be taken.
start_server() {
  local attempt seen
  for attempt in 1 2 3 4 5; do
    write_port_conf
    # The log is appended to across (re)starts: look only at what this attempt adds.
    seen=0
    [[ -f "$dir/postgres.log" ]] && seen="$(wc -l <"$dir/postgres.log")"
    # 3>&- 7>&- 8>&-: the server outlives this script; it must not inherit the stdout pipe that a
    # caller's $(…) waits on to close, nor the lock files' descriptors.
    if as_owner "$bindir/pg_ctl" start -D "$data" -l "$dir/postgres.log" -w -t 60 -s 3>&- 7>&- 8>&-; then
      return 0
    fi
    if tail -n "+$((seen + 1))" "$dir/postgres.log" 2>/dev/null | grep -q -e 'could not bind' -e 'Address already in use'; then
      log "port $port was taken; trying another (attempt $attempt)"
      port="$(free_port)"
      continue
    fi
    tail -n 30 "$dir/postgres.log" >&2 || true
    die "the server did not start (log: $dir/postgres.log)"
  done
  die "found no free port in 5 attempts"
}

url_for() { echo "postgres://$ROLE:$password@127.0.0.1:$port/$DB?sslmode=disable"; }

# Creates the role and the database unless they exist, so a start that was interrupted after
# initdb can simply be run again. The role owns the database: since PostgreSQL 15 only the
# database owner may create tables in its public schema, and Pulumi creates its table there.
ensure_role_and_db() {
  if [[ -z "$(psql_admin -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'")" ]]; then
    psql_admin -c "CREATE ROLE $ROLE LOGIN PASSWORD '$password'"
  fi
  if [[ -z "$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'")" ]]; then
    psql_admin -c "CREATE DATABASE $DB OWNER $ROLE"
  fi
}

# --- subcommands -----------------------------------------------------------------------------------

cmd_start() {
  local t0; t0="$(date +%s%N)"
  mkdir -p "$dir_arg"
  dir="$(cd "$dir_arg" && pwd -P)"
  data="$dir/data"
  # Never take over (chown, later rm -rf) a directory that holds someone else's files.
  if [[ ! -e "$dir/$MARKER" && -n "$(ls -A "$dir")" ]]; then
    die "$dir is not empty and was not made by postgres.sh start; give an empty or new directory"
  fi
  touch "$dir/$MARKER"

  # Two `start`s of the same directory at once must not both run initdb.
  if command -v flock >/dev/null 2>&1; then exec 8>>"$dir/.lock"; flock 8; fi

  [[ -z "${PG_BINDIR:-}" ]] || find_bindir >/dev/null # dies here, not in $(…), if PG_BINDIR is wrong
  bindir="$(find_bindir)" || { install_server; bindir="$(find_bindir)"; }
  psql="$bindir/psql"; [[ -x "$psql" ]] || psql="$(command -v psql)" || die "no psql found"
  log "using PostgreSQL binaries in $bindir ($("$bindir/postgres" --version))"

  if is_root; then
    id postgres >/dev/null 2>&1 \
      || die "running as root, but there is no 'postgres' user to run the server as (PostgreSQL refuses to run as root)"
    chown postgres: "$dir"
    # Every parent must be searchable by that user: /root, or a mktemp -d under a 0700 dir, is not.
    as_owner test -w "$dir" -a -x "$dir" \
      || die "the postgres user cannot reach $dir (a parent directory is not searchable by it); use a directory under /tmp"
  fi

  if [[ -f "$data/PG_VERSION" ]]; then
    # Already initialised: print the URL of the running server, or start it again
    # (after a reboot or a crash) on the port it had, or a new one if that is taken.
    [[ -f "$dir/url" ]] || die "$data exists but $dir/url does not; run 'stop $dir' and start again"
    local url; url="$(cat "$dir/url")"
    password="${url#postgres://$ROLE:}"; password="${password%%@*}"
    port="${url##*@127.0.0.1:}"; port="${port%%/*}"
    if pg_running; then
      log "a server is already running in $data"
      echo "$url" >&3
      return 0
    fi
    log "restarting the stopped server in $data"
  else
    # Hex only, so it needs no escaping in the URL nor in SQL.
    password="$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')"
    port="$(free_port)"
    mkdir -p "$dir/run"
    is_root && chown postgres: "$dir/run" || true
    # --no-locale/UTF8: the same collation everywhere, whatever locales the machine has;
    # --no-sync: nothing here needs to survive a power cut.
    as_owner "$bindir/initdb" -D "$data" -U postgres -E UTF8 --no-locale --no-sync \
      --auth-local=trust --auth-host=trust >/dev/null
    # Trust, but for loopback connections only (the server listens nowhere else either).
    cat >"$data/pg_hba.conf" <<'EOF'
# Written by scripts/postgres.sh: a throw-away test server; only this machine can connect.
local all all              trust
host  all all 127.0.0.1/32 trust
EOF
    cat >>"$data/postgresql.conf" <<'EOF'

# --- scripts/postgres.sh: a throw-away server for tests; durability is not wanted ---
fsync = off
full_page_writes = off
synchronous_commit = off
ssl = off
include = 'postgres-sh.conf'
EOF
    is_root && chown postgres: "$data/pg_hba.conf" "$data/postgresql.conf" || true
  fi

  start_server
  ensure_role_and_db
  url_for >"$dir/url"
  log "started in $(( ($(date +%s%N) - t0) / 1000000 )) ms; log: $dir/postgres.log"
  url_for >&3
}

cmd_url() {
  [[ -d "$dir_arg" ]] || die "no such directory: $dir_arg"
  dir="$(cd "$dir_arg" && pwd -P)"
  data="$dir/data"
  [[ -f "$dir/url" ]] || die "no cluster started by 'postgres.sh start' in $dir"
  bindir="$(find_bindir)" || die "no PostgreSQL binaries found"
  pg_running || die "the cluster in $data is not running"
  cat "$dir/url" >&3
}

# Kills the postmaster named in postmaster.pid (and its children) if pg_ctl could not stop it,
# after checking that the PID really is a postgres process.
kill_leftover() {
  local pidfile="$data/postmaster.pid" pid comm
  [[ -f "$pidfile" ]] || return 0
  pid="$(head -n1 "$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 0
  comm="$(ps -o comm= -p "$pid" 2>/dev/null || true)"
  [[ "$comm" == postgres || "$comm" == postmaster ]] || return 0
  log "killing postmaster $pid and its children"
  local kids; kids="$(ps -o pid= --ppid "$pid" 2>/dev/null || true)"
  # shellcheck disable=SC2086 # a list of PIDs
  kill -KILL "$pid" $kids 2>/dev/null || true
  sleep 0.5
}

cmd_stop() {
  if [[ ! -e "$dir_arg" ]]; then log "nothing to stop: $dir_arg does not exist"; return 0; fi
  dir="$(cd "$dir_arg" && pwd -P)"
  data="$dir/data"
  [[ -e "$dir/$MARKER" || -z "$(ls -A "$dir")" ]] \
    || die "refusing to delete $dir: it was not made by postgres.sh start"
  if [[ -f "$data/PG_VERSION" ]]; then
    local pid=""
    [[ -f "$data/postmaster.pid" ]] && pid="$(head -n1 "$data/postmaster.pid")"
    if bindir="$(find_bindir)" && pg_running; then
      # fast: disconnect clients (a test's pulumi may still hold a connection) and shut down
      # cleanly; -w waits until postmaster.pid is gone, i.e. until every backend has exited.
      as_owner "$bindir/pg_ctl" stop -D "$data" -m fast -w -t 60 -s \
        || as_owner "$bindir/pg_ctl" stop -D "$data" -m immediate -w -t 30 -s \
        || log "warning: pg_ctl could not stop the server"
    fi
    kill_leftover
    # The postmaster was orphaned at start (pg_ctl exits), so after it exits it stays a zombie
    # until init reaps it. Wait briefly for that, so that "no postgres process is left" holds
    # as soon as stop returns.
    local i
    for i in $(seq 50); do
      [[ "$pid" =~ ^[0-9]+$ && "$(ps -o comm= -p "$pid" 2>/dev/null)" == postgres ]] || break
      sleep 0.1
    done
  fi
  rm -rf "$dir"
  log "stopped and removed $dir"
}

# What an administrator runs (examples/catalog-tool/read-only-role.sql); its output is the caller's.
cmd_psql() {
  local url; url="$(cmd_url 3>&1)"
  port="${url##*@127.0.0.1:}"; port="${port%%/*}"
  bindir="$(find_bindir)"
  psql="$bindir/psql"; [[ -x "$psql" ]] || psql="$(command -v psql)" || die "no psql found"
  exec 1>&3 3>&-
  "$psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d "$DB" "$@"
}

[[ $# -ge 2 && -n "$2" ]] || usage
dir_arg="$2"
case "$1" in
  start) [[ $# -eq 2 ]] || usage; cmd_start ;;
  stop) [[ $# -eq 2 ]] || usage; cmd_stop ;;
  url) [[ $# -eq 2 ]] || usage; cmd_url ;;
  psql) shift 2; cmd_psql "$@" ;;
  *) usage ;;
esac
