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

# SANDSHIM_TEST_RUNSC: the runsc the suites test against, sandshim's and the raw-runsc
# columns' (default: the system's, Debian 12's 0.0~20221219). ctest's *_2024 entries set it to
# Debian 13's (scripts/fetch-runsc-trixie.sh). sandshim takes its runsc from its config
# ("runsc"), and the suites write configs of their own and start daemons that run sandshim
# without our environment: so SANDSHIM_BIN becomes a wrapper that runs sandshim with its
# config (SANDSHIM_CONFIG, else /etc/sandshim/config.json) plus "runsc", a copy kept next to
# the wrapper and remade when the config changes. sandshim passes SANDSHIM_CONFIG on to what
# it starts in the background (context spares, pool refills): they use the same runsc.
TEST_RUNSC=${SANDSHIM_TEST_RUNSC:-/usr/bin/runsc}
if [ -n "${SANDSHIM_TEST_RUNSC:-}" ] && [ "${SANDSHIM_BIN##*/}" != sandshim-with-runsc ]; then
  _rw=${TMPDIR:-/tmp}/sandshim-test-runsc/$(printf '%s\n%s' "$SANDSHIM_TEST_RUNSC" "$SANDSHIM_BIN" | md5sum | cut -c1-12)
  mkdir -p "$_rw"
  cat >"$_rw/.w.$$" <<WRAPPER
#!/bin/bash
cfg=\${SANDSHIM_CONFIG:-/etc/sandshim/config.json}
m=$_rw/cfg\${cfg//\//_}
if [ ! -e "\$m" ] || [ "\$cfg" -nt "\$m" ]; then
  # The config's own "runsc" wins (lib/broken_runsc.sh); one jq cannot read is passed as is.
  if { cat "\$cfg" 2>/dev/null || echo '{}'; } | jq --arg r $(printf %q "$SANDSHIM_TEST_RUNSC") '{runsc: \$r} + .' >"\$m.\$\$" 2>/dev/null
  then mv -f "\$m.\$\$" "\$m"; else rm -f "\$m.\$\$"; m=\$cfg; fi
fi
SANDSHIM_CONFIG=\$m exec $(printf %q "$SANDSHIM_BIN") "\$@"
WRAPPER
  chmod 755 "$_rw/.w.$$" && mv -f "$_rw/.w.$$" "$_rw/sandshim-with-runsc"
  export SANDSHIM_BIN=$_rw/sandshim-with-runsc
  unset _rw
fi

readonly EXIT_SKIP=77

# resolve_runtime NAME|PATH: sets RT_BIN (absolute path) and RT_ARGS (global flags to
# put before every runtime subcommand). Names: sandshim ($SANDSHIM_BIN + $SANDSHIM_ARGS),
# runc, crun, runsc, runsc-host (runsc --network=host); anything else is a binary path
# or command name. $RUNTIME_ARGS (whitespace separated) is appended in all cases.
resolve_runtime() {
  RT_ARGS=()
  case $1 in
    sandshim) RT_BIN=$SANDSHIM_BIN ;;
    runc) RT_BIN=/usr/sbin/runc ;;
    crun) RT_BIN=/usr/bin/crun ;;
    runsc) RT_BIN=$TEST_RUNSC ;;
    runsc-host) RT_BIN=$TEST_RUNSC; RT_ARGS=(--network=host) ;;
    */*) RT_BIN=$(readlink -f "$1" 2>/dev/null || echo "$1") ;;
    *) RT_BIN=$(abs_cmd "$1" || echo "$1") ;;
  esac
  # shellcheck disable=SC2206 # deliberate word splitting of flag lists
  case ${RT_BIN##*/} in sandshim*) RT_ARGS+=($SANDSHIM_ARGS) ;; esac
  # shellcheck disable=SC2206
  RT_ARGS+=(${RUNTIME_ARGS:-})
}

# Clients that take only a runtime binary (ctr --runc-binary), or that lose flags on
# some code paths (podman), get a wrapper script that adds RT_ARGS and any extra
# global flags given; prints the path to hand over (RT_BIN itself if no flags).
runtime_wrapper() { # DIR [EXTRA_GLOBAL_FLAG...]
  local dir=$1; shift
  local flags=("${RT_ARGS[@]}" "$@")
  [ "${#flags[@]}" -eq 0 ] && { echo "$RT_BIN"; return 0; }
  mkdir -p "$dir"
  write_wrapper "$dir/runtime" "$RT_BIN" "${flags[@]}"
  echo "$dir/runtime"
}

# write_wrapper FILE BIN [FLAG...]: an executable FILE that runs BIN FLAG... "$@".
write_wrapper() {
  local file=$1 bin=$2; shift 2
  {
    echo '#!/bin/sh'
    printf 'exec %q' "$bin"; [ $# -eq 0 ] || printf ' %q' "$@"; echo ' "$@"'
  } >"$file"
  chmod +x "$file"
}

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

# A container's interface names, space-separated and sorted, from /proc/net/dev: every gVisor
# serves it from its network stack (Debian 13's runsc has no /sys/class/net: docs/RUNSC.md).
# shellcheck disable=SC2034  # used by the docker, podman and ctr suites
IFACES_CMD='tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | sort | tr "\n" " "'
# The host's default-route interface: the one a host-network container must list.
host_uplink() { ip route show default | awk '{for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit } }' | grep .; }

# capture CMD...: runs CMD, leaving stdout in OUT, stderr in ERR and the status in RC.
# Lines of stderr matching the ERE $CAPTURE_IGNORE are dropped (a daemon's warning that
# every command prints, e.g. docker's "IPv4 forwarding is disabled").
capture() {
  local ef
  ef=$(mktemp)
  OUT=$("$@" 2>"$ef")
  RC=$?
  if [ -n "${CAPTURE_IGNORE:-}" ]; then ERR=$(grep -Ev -- "$CAPTURE_IGNORE" "$ef"); else ERR=$(cat "$ef"); fi
  rm -f "$ef"
}

# ---------------------------------------------------------------------------
# Teardown helpers shared by all the tests. Each test keeps everything under one
# private directory DIR, and its containers under a cgroup parent derived from DIR.
# ---------------------------------------------------------------------------

# A private work dir for one test run. 0755 because runsc's sandbox helpers drop
# privileges and must still read bundles and mounts below it.
make_workdir() {
  local d
  d=$(mktemp -d "${TMPDIR:-/tmp}/sandshim-it.XXXXXX") || die "mktemp failed"
  chmod 755 "$d"
  echo "$d"
}

# Name of the cgroup parent for containers of the test owning DIR. It carries
# "sandshim" so check-leaks spots leftovers, and is unique per DIR so concurrent
# runs (and any other docker/podman) never share it.
cgroup_parent_for() { printf 'sandshim-it-%s' "$(printf %s "$1" | md5sum | cut -c1-8)"; }

# Removes that cgroup parent in every hierarchy. With "all", container cgroups left
# inside go first; with CHILD names, just those (e.g. podman's own "conmon"); else the
# parent goes only if empty, so leftovers stay visible to a leak check. rmdir never
# removes a cgroup that still has processes.
remove_cgroup_parent() { # DIR [all | CHILD...]
  local dir=$1 cg c; shift
  find /sys/fs/cgroup -maxdepth 6 -type d -name "$(cgroup_parent_for "$dir")" 2>/dev/null |
    while read -r cg; do
      if [ "${1:-}" = all ]; then
        find "$cg" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
      else
        for c in "$@"; do rmdir "$cg/$c" 2>/dev/null; done
      fi
      rmdir "$cg" 2>/dev/null
    done
  true
}

# Last resort for processes that outlived their parents (e.g. a runsc-gofer orphaned
# by a sandbox that crashed during create): anything whose command line names DIR/.
# Our own shell and its parent are spared in case DIR is on their command line.
kill_procs_naming() { # DIR
  local d pid cmd spare=" $$ ${BASHPID:-} $PPID "
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    case $spare in *" $pid "*) continue ;; esac
    cmd=$( (tr '\0' ' ' <"$d/cmdline") 2>/dev/null) || continue
    case $cmd in *"$1/"*) log "killing leftover $pid: ${cmd:0:120}"; kill -KILL "$pid" 2>/dev/null ;; esac
  done
  true
}

# Unmounts everything below DIR, deepest first, lazily as a last resort.
unmount_under() { # DIR
  local m
  for m in $(awk -v d="$1/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "cannot unmount $m"
  done
}

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

# `return $(fail "why")`, an idiom all over the suites, runs fail in a subshell, where REASON
# is lost: the report said only "exit status 1". So fail and skip also leave the reason in
# a file, which run_check reads when REASON came back empty.
_REASON_FILE=""
_note_reason() { [ -z "$_REASON_FILE" ] || printf '%s' "$*" >"$_REASON_FILE" 2>/dev/null || true; }
fail() { REASON="$*"; _note_reason "$*"; return 1; }
skip() { REASON="$*"; _note_reason "$*"; return "$EXIT_SKIP"; }

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
  case "$1" in *"$2"*) fail "$3: unexpected '$2' in '$(printf '%s' "$1" | head -c 300)'"; return 1 ;; esac
  return 0
}

run_check() { # name function [args...]
  local name=$1; shift
  if [ -n "$CHECK_FILTER" ] && ! [[ $name =~ $CHECK_FILTER ]]; then return 0; fi
  REASON=""
  if [ -z "$_REASON_FILE" ]; then
    _REASON_FILE=$(mktemp "${TMPDIR:-/tmp}/sandshim-reason.XXXXXX") && on_exit 'rm -f "$_REASON_FILE"'
  fi
  [ -z "$_REASON_FILE" ] || : >"$_REASON_FILE"
  local rc=0 start=$SECONDS
  "$@" || rc=$?
  [ -n "$REASON" ] || [ ! -s "${_REASON_FILE:-/nonexistent}" ] || REASON=$(cat "$_REASON_FILE")
  if [ -n "$AFTER_CHECK_HOOK" ]; then
    # Runs after failed checks too (it cleans up); its complaint is appended.
    local first=$REASON
    REASON=""
    if ! $AFTER_CHECK_HOOK; then
      if [ "$rc" -eq 0 ] || [ "$rc" -eq "$EXIT_SKIP" ]; then
        rc=1
      else
        REASON="$first; also $REASON"
      fi
    else
      REASON=$first
    fi
  fi
  local took="$((SECONDS - start))s"
  # One tab-separated line per check for tools that compare runs (vs_runc.sh): names
  # contain ':' and spaces, so the human lines above cannot be split reliably.
  if [ -n "${CHECK_RESULTS_FILE:-}" ]; then
    local verdict=fail
    case $rc in 0) verdict=pass ;; "$EXIT_SKIP") verdict=skip ;; esac
    printf '%s\t%s\n' "$verdict" "$name" >>"$CHECK_RESULTS_FILE"
  fi
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
# Leak checks (scripts/check-leaks.sh) scoped to one test: only what names the test's
# dir or its cgroup parent counts, so other containers on the machine are not blamed.
#   leaks_init DIR [RUNTIME_ROOT...]  before anything starts: the "pre" snapshot
#   leaks_baseline                    after daemons/images are up: the per-check base
#   leaks_since_baseline              after each check (fails with a summary)
#   leaks_since_start                 at the very end, after everything was stopped
# ---------------------------------------------------------------------------
LEAK_SCOPE=()
LEAK_ROOTS=()
LEAK_DIR=""

leaks_init() { # DIR [RUNTIME_ROOT...]
  LEAK_DIR=$1; shift
  LEAK_SCOPE=(--match "$LEAK_DIR" --match "$(cgroup_parent_for "$LEAK_DIR")")
  LEAK_ROOTS=()
  local r
  for r in "$@"; do LEAK_ROOTS+=(--root "$r"); done
  mkdir -p "$LEAK_DIR.leaks"
  on_exit 'rm -rf "$LEAK_DIR.leaks"'
  "$CHECK_LEAKS" "${LEAK_SCOPE[@]}" --snapshot "$LEAK_DIR.leaks/pre"
}

leaks_baseline() {
  "$CHECK_LEAKS" "${LEAK_SCOPE[@]}" "${LEAK_ROOTS[@]}" --snapshot "$LEAK_DIR.leaks/base"
}

# Each leftover is blamed on the check that caused it only: once reported it joins
# the baseline.
leaks_since_baseline() {
  local leaks
  leaks=$("$CHECK_LEAKS" "${LEAK_SCOPE[@]}" "${LEAK_ROOTS[@]}" \
    --since-snapshot "$LEAK_DIR.leaks/base" --wait "${LEAK_WAIT:-15}") && return 0
  leaks_baseline
  fail "leak: $(summarize_leaks "$leaks")"
}

leaks_since_start() {
  local leaks
  leaks=$("$CHECK_LEAKS" "${LEAK_SCOPE[@]}" "${LEAK_ROOTS[@]}" \
    --since-snapshot "$LEAK_DIR.leaks/pre" --wait 10) && return 0
  fail "leak: $(summarize_leaks "$leaks")"
}

# One phrase per kind of leftover: count and first example (cgroups repeat once per
# hierarchy, so counts are large). The full list goes to stderr.
summarize_leaks() {
  printf '%s\n' "$1" | head -n 25 | sed 's/^/#   /' >&2
  tail -n +2 <<<"$1" | awk '{ k = $1; n[k]++; if (!(k in ex)) ex[k] = $2 " " $3 " " $4 }
    END { for (k in n) printf "%d %s (e.g. %s); ", n[k], k, substr(ex[k], 1, 160) }'
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
  # shellcheck disable=SC2154 # _rc is assigned inside the trap string
  trap '_rc=$?; _run_cleanups; exit $_rc' EXIT
  trap 'log "interrupted"; exit 130' INT
  trap 'log "terminated"; exit 143' TERM
}
