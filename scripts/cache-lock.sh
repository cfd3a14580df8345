# Sourced by the scripts that build a tool into the cache outside the repository (install-pulumi.sh,
# install-opa.sh): test files run in parallel and each runs such a script, so one builds and the
# others wait for it, then find its build.
#
#   cache_lock DIR NAME [WAITING]   # makes DIR, holds DIR/.NAME.lock (fd 9) until the script exits;
#                                   # says WAITING (with the script's `say`) when another holds it
cache_lock() {
  mkdir -p "$1"
  command -v flock >/dev/null 2>&1 || return 0
  exec 9>"$1/.$2.lock"
  if ! flock -n 9; then
    [[ -n "${3:-}" ]] && say "$3"
    flock 9
  fi
}
