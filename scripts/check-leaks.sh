#!/usr/bin/env bash
# Reports what containers can leave behind: runtime processes (runsc, runsc-sandbox,
# runsc-gofer, sandshim), containerd shims, conmon, mounts, runtime state files,
# cgroups, and host device nodes (/dev/null...) no longer owned by root. Exit 0 = nothing found, 1 = leftovers (listed on stdout), 2 = usage error.
#
#   check-leaks.sh [--match STR]... [--root DIR]... [--since-snapshot FILE]
#                  [--snapshot FILE] [--wait SECS] [--quiet]
#
#  --match STR   scope (repeatable): runtime processes/shims count only if their
#                command line contains a STR, mounts and cgroups only if their path
#                does (pass the test's private dir and its cgroup parent name).
#                Without --match: every runsc/sandshim process and shim, and every
#                mount/cgroup whose path contains "sandshim" - for an idle machine.
#  --root DIR    a runtime --root (state dir); any file below it is a leftover
#                container state (empty directories are fine).
#  --snapshot F  record the current findings in F and exit 0 (the "before" picture).
#  --since-snapshot F  only report findings that were not in F (the "after" diff), so
#                unrelated containers running on the machine are not blamed on us.
#  --wait SECS   keep re-checking up to SECS before reporting: shims and sandboxes
#                exit asynchronously after a container is removed.
#
# Examples:
#   check-leaks.sh                                   # idle machine: anything left?
#   check-leaks.sh --match /tmp/t1 --snapshot /tmp/before
#   ...run containers...
#   check-leaks.sh --match /tmp/t1 --since-snapshot /tmp/before --wait 10
set -u

matches=() roots=() snapshot_out="" since="" wait_secs=0 quiet=0
usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --match) matches+=("${2:?}"); shift 2 ;;
    --root) roots+=("${2:?}"); shift 2 ;;
    --snapshot) snapshot_out=${2:?}; shift 2 ;;
    --since-snapshot) since=${2:?}; shift 2 ;;
    --wait) wait_secs=${2:?}; shift 2 ;;
    --quiet|-q) quiet=1; shift ;;
    -h|--help) usage ;;
    *) echo "check-leaks: unknown argument $1" >&2; usage ;;
  esac
done

in_scope() { # STRING [DEFAULT]: true if STRING contains a --match (or, without
  # any --match, DEFAULT; an empty DEFAULT matches everything)
  local m
  if [ "${#matches[@]}" -eq 0 ]; then
    case $1 in *"${2:-}"*) return 0 ;; esac
    return 1
  fi
  for m in "${matches[@]}"; do
    case $1 in *"$m"*) return 0 ;; esac
  done
  return 1
}

# "proc PID CMDLINE" for runtime processes, shims and conmon. argv[0] and comm are both
# looked at because runsc renames its children (runsc-sandbox, runsc-gofer).
list_procs() {
  local d pid comm cmd argv0
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    [ "$pid" = "$$" ] && continue
    # The process may exit between the glob and the read: silence and skip it.
    comm=$( (cat "$d/comm") 2>/dev/null) || continue
    cmd=$( (tr '\0' ' ' <"$d/cmdline") 2>/dev/null) || continue
    [ -n "$cmd" ] || continue # kernel threads and zombies
    argv0=${cmd%% *}; argv0=${argv0##*/}
    case "$comm|$argv0" in
      runsc-sandbox*|runsc-gofer*|*"|runsc-sandbox"|*"|runsc-gofer"|runsc\|*|*\|runsc) ;;
      *sandshim*) ;;
      containerd-shim*|*"|containerd-shim"*) ;;
      conmon*|*"|conmon") ;; # podman's per-container monitor
      *) continue ;;
    esac
    in_scope "$cmd" || continue
    printf 'proc %s %s\n' "$pid" "${cmd% }"
  done
}

list_mounts() {
  local mp
  # Field 5 of mountinfo is the mount point (octal-escaped, fine for matching).
  while read -r mp; do
    in_scope "$mp" sandshim && printf 'mount %s\n' "$mp"
  done < <(awk '{ print $5 }' /proc/self/mountinfo)
}

list_state() {
  local r
  for r in "${roots[@]}"; do
    [ -d "$r" ] || continue
    find "$r" -mindepth 1 -maxdepth 5 ! -type d -printf 'state %p\n' 2>/dev/null
  done
}

list_cgroups() {
  # Whole subtrees: a container's own cgroup is named after its id, only a parent
  # (e.g. dockerd's --cgroup-parent) carries the distinctive name.
  local cg
  while read -r cg; do
    in_scope "$cg" sandshim && printf 'cgroup %s\n' "$cg"
  done < <(find /sys/fs/cgroup -mindepth 2 -maxdepth 8 -type d 2>/dev/null)
}

# The host's shared device nodes keep their owner: runsc chowns the stdio it is handed to
# the container's user, so a runtime that hands it the caller's /dev/null changes it for
# every program on the host (sandshim hands runsc private nodes, or no runsc at all).
list_host() {
  local n owner
  for n in /dev/null /dev/zero /dev/full /dev/random /dev/urandom; do
    owner=$(stat -c %u "$n" 2>/dev/null) || continue
    [ "$owner" = 0 ] || printf 'host %s owned by uid %s\n' "$n" "$owner"
  done
}

findings() { { list_procs; list_mounts; list_state; list_cgroups; list_host; } | sort -u; }

# Findings not present in the snapshot. Processes are compared by pid+cmdline so a
# recycled pid with a different command is still new.
new_findings() {
  if [ -n "$since" ]; then
    [ -r "$since" ] || { echo "check-leaks: cannot read snapshot $since" >&2; exit 2; }
    findings | comm -23 - <(sort -u "$since")
  else
    findings
  fi
}

if [ -n "$snapshot_out" ]; then
  findings >"$snapshot_out"
  exit 0
fi

deadline=$((SECONDS + wait_secs))
while :; do
  leaks=$(new_findings)
  [ -z "$leaks" ] && exit 0
  [ "$SECONDS" -ge "$deadline" ] && break
  sleep 0.5
done
if [ "$quiet" -eq 0 ]; then
  echo "check-leaks: $(printf '%s\n' "$leaks" | wc -l) leftover(s):"
  printf '%s\n' "$leaks" | sed 's/^/  /'
fi
exit 1
