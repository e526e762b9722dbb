#!/usr/bin/env bash
# Reports what containers can leave behind: runtime processes, shims, mounts, state
# files and cgroups. Exit 0 = nothing found, 1 = leaks (listed on stdout), 2 = usage.
#
#   check-leaks.sh [--match STR]... [--root DIR]... [--since-snapshot FILE]
#                  [--snapshot FILE] [--wait SECS] [--quiet]
#
#  --match STR   scope: runtime processes/shims count only if their command line
#                contains STR (typically the test's private dir); mounts count if
#                their path contains STR. Without --match every runsc/sandshim process
#                and every shim counts, which is what you want on an idle machine.
#  --root DIR    a runtime --root (state dir); any file below it is a leftover
#                container state (empty directories are fine).
#  --snapshot F  record the current findings in F and exit 0 (the "before" picture).
#  --since-snapshot F  only report findings that were not in F (the "after" diff), so
#                unrelated containers running on the machine are not blamed on us.
#  --wait SECS   keep re-checking up to SECS before reporting: shims and sandboxes
#                exit asynchronously after a container is removed.
#
# Mounts whose path contains "sandshim" and cgroups whose name contains "sandshim"
# always count.
set -u

matches=() roots=() snapshot_out="" since="" wait_secs=0 quiet=0
usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
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

in_scope() { # STRING: true if no --match given or STRING contains one of them
  [ "${#matches[@]}" -eq 0 ] && return 0
  local m
  for m in "${matches[@]}"; do
    case $1 in *"$m"*) return 0 ;; esac
  done
  return 1
}

# "proc PID CMDLINE" for runtime processes and shims. argv[0] and comm are both
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
    case $mp in *sandshim*) printf 'mount %s\n' "$mp"; continue ;; esac
    [ "${#matches[@]}" -gt 0 ] && in_scope "$mp" && printf 'mount %s\n' "$mp"
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
  # (e.g. dockerd's --cgroup-parent) carries the sandshim name.
  find /sys/fs/cgroup -mindepth 2 -maxdepth 8 -type d -path '*sandshim*' -printf 'cgroup %p\n' 2>/dev/null
}

findings() { { list_procs; list_mounts; list_state; list_cgroups; } | sort -u; }

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
