# shellcheck shell=bash
# Shared helpers for the integration tests: logging, a tiny TAP-like check runner,
# polling helpers and the locations of the real tools we drive.
# Sourced, never executed. Callers use `set -u` (not -e: a failing check must not
# abort the whole run, it is counted instead).

[ -n "${_SANDSHIM_COMMON_SH:-}" ] && return 0
_SANDSHIM_COMMON_SH=1

IT_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(git -C "$IT_LIB_DIR" rev-parse --show-toplevel 2>/dev/null || (cd "$IT_LIB_DIR/../../.." && pwd))
CHECK_LEAKS="$REPO_ROOT/scripts/check-leaks.sh"

# The binary under test. It may not exist yet; scripts only need it when it is selected.
SANDSHIM_BIN=${SANDSHIM_BIN:-$REPO_ROOT/build/sandshim}
# Extra runtime flags for sandshim, whitespace separated (e.g. "--debug --platform=ptrace").
SANDSHIM_ARGS=${SANDSHIM_ARGS:-}

# Exit code understood by automake-style harnesses (and our README) as "skipped".
readonly EXIT_SKIP=77

log() { printf '# %s\n' "$*" >&2; }
die() { printf 'FATAL: %s\n' "$*" >&2; exit 1; }
skip_all() { printf '# SKIP: %s\n' "$*"; printf '0 passed, 0 failed, 1 skipped\n'; exit "$EXIT_SKIP"; }

require_root() {
  [ "$(id -u)" -eq 0 ] || skip_all "must run as root"
}

require_cmds() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 || skip_all "required command not found: $c"
  done
}

# Absolute path of a command name or path; empty if it cannot be found.
abs_cmd() {
  local p
  p=$(command -v "$1" 2>/dev/null) || return 1
  readlink -f "$p"
}

# Short unique suffix for container/task names so parallel runs do not collide.
uniq_name() { printf '%s-%s-%s' "$1" "$$" "$((RANDOM % 100000))"; }

# wait_until SECONDS CMD...: poll CMD every 0.2 s until it succeeds or time runs out.
wait_until() {
  local secs=$1; shift
  local deadline=$((SECONDS + secs))
  while :; do
    "$@" >/dev/null 2>&1 && return 0
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.2
  done
}

# Milliseconds since the epoch, for timing assertions.
now_ms() { date +%s%3N; }

# ---------------------------------------------------------------------------
# Check runner. A check is a function that returns 0 (pass), 77 (skip) or anything
# else (fail); it explains failures/skips through fail/skip, which set REASON.
# ---------------------------------------------------------------------------
N_PASS=0
N_FAIL=0
N_SKIP=0
REASON=""
FAILED_CHECKS=()
# Optional hook run after each check (e.g. a leak check); it may call fail.
AFTER_CHECK_HOOK=${AFTER_CHECK_HOOK:-}
# Only run checks whose name matches this ERE (handy when iterating on one check).
CHECK_FILTER=${CHECK_FILTER:-}

fail() { REASON="$*"; return 1; }
skip() { REASON="$*"; return "$EXIT_SKIP"; }

# Assertions return non-zero with REASON set, so checks can use `assert_x ... || return`.
assert_eq() { # expected actual what
  [ "$1" = "$2" ] || fail "$3: expected '$1', got '$(printf '%s' "$2" | head -c 300)'"
}
assert_ne() { # unexpected actual what
  [ "$1" != "$2" ] || fail "$3: did not expect '$1'"
}
assert_contains() { # haystack needle what
  case "$1" in *"$2"*) return 0 ;; esac
  fail "$3: '$2' not in '$(printf '%s' "$1" | head -c 300)'"
}
assert_not_contains() { # haystack needle what
  case "$1" in *"$2"*) fail "$3: unexpected '$2' in '$(printf '%s' "$1" | head -c 300)'" ;; esac
  return 0
}

run_check() { # name function [args...]
  local name=$1; shift
  if [ -n "$CHECK_FILTER" ] && ! [[ $name =~ $CHECK_FILTER ]]; then return 0; fi
  REASON=""
  local rc=0 start=$SECONDS
  "$@" || rc=$?
  if [ "$rc" -eq 0 ] && [ -n "$AFTER_CHECK_HOOK" ]; then
    $AFTER_CHECK_HOOK || rc=$?
  elif [ -n "$AFTER_CHECK_HOOK" ]; then
    # Still clean up/inspect after a failed check, but keep the original reason.
    local keep=$REASON
    $AFTER_CHECK_HOOK >/dev/null 2>&1 || true
    REASON=$keep
  fi
  local took="$((SECONDS - start))s"
  case $rc in
    0) N_PASS=$((N_PASS + 1)); printf 'ok - %s (%s)\n' "$name" "$took" ;;
    "$EXIT_SKIP") N_SKIP=$((N_SKIP + 1)); printf 'ok - %s # SKIP %s\n' "$name" "$REASON" ;;
    *) N_FAIL=$((N_FAIL + 1)); FAILED_CHECKS+=("$name")
       printf 'not ok - %s: %s\n' "$name" "${REASON:-exit status $rc}" ;;
  esac
}

# Prints the summary line and exits: 1 if anything failed, 0 otherwise.
finish_checks() {
  [ "${#FAILED_CHECKS[@]}" -gt 0 ] && log "failed: ${FAILED_CHECKS[*]}"
  if [ "$N_SKIP" -gt 0 ]; then
    printf '%d passed, %d failed, %d skipped\n' "$N_PASS" "$N_FAIL" "$N_SKIP"
  else
    printf '%d passed, %d failed\n' "$N_PASS" "$N_FAIL"
  fi
  [ "$N_FAIL" -eq 0 ] && exit 0
  exit 1
}

# ---------------------------------------------------------------------------
# Cleanup stack: every resource registers how to undo itself, and one EXIT trap
# runs them in reverse order - also on Ctrl-C / TERM, which we turn into exits.
# ---------------------------------------------------------------------------
_CLEANUPS=()
on_exit() { _CLEANUPS+=("$*"); }
_run_cleanups() {
  local i
  trap '' INT TERM  # a second Ctrl-C must not interrupt the cleanup itself
  for ((i = ${#_CLEANUPS[@]} - 1; i >= 0; i--)); do
    eval "${_CLEANUPS[$i]}" || true
  done
  _CLEANUPS=()
}
install_traps() {
  trap '_rc=$?; _run_cleanups; exit $_rc' EXIT
  trap 'log "interrupted"; exit 130' INT
  trap 'log "terminated"; exit 143' TERM
}
