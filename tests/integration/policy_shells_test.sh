#!/usr/bin/env bash
# The command policy against the real shells (#33): every bypass attempt in
# tests/policy/bypass.txt is run by dash, busybox sh and bash under strace, with the
# policy's denied command as a logging stub first in PATH, and judged by
# `sandshim policy check -- sh -c SCRIPT` under three policies (the docs' example, a
# developer platform's, a reviewer's). What ran decides what the attempt is: if any shell
# executed the denied command, read the denied file or wrote the locked one, the attempt is
# real, and the parser must not have said allow (the differential check; the shells are the
# positive control that the attempt works). Attempts marked @beyond (an allowed program's
# own actions) are counted, not failed: the mounts and the exec supervisor hold those.
# Then every line of tests/policy/ordinary.txt must be allowed under dev.json.
# Prints a table per class and policy (attempts, real, allow/ask/deny among the real).
# Needs no root (strace traces its own children). REPORT=FILE also writes the table there.
set -u
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/../policy
BIN=${SANDSHIM_BIN:-$here/../../build/sandshim}
for c in strace dash busybox bash jq timeout; do
  command -v "$c" >/dev/null || { echo "SKIP: $c missing"; exit 77; }
done
[ -x "$BIN" ] || { echo "SKIP: no sandshim binary at $BIN"; exit 77; }

W=$(mktemp -d /tmp/sandshim-corpus.XXXXXX)
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
# The cases really run: as root, they run as nobody, so none can touch the host (the trace
# still shows an attempt the permissions refuse, which is what is judged).
RUNAS=()
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && RUNAS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
mkdir -p "$W/secret" "$W/locked" "$W/ws" "$W/bin" "$W/cases"
echo "TOPSECRET-$$" >"$W/secret/sandshim-secret-key"
for n in curl wget evil sudo nsenter; do printf '#!/bin/sh\nexit 0\n' >"$W/bin/$n"; chmod 755 "$W/bin/$n"; done
for p in example dev reviewer; do sed "s#@TMP#$W#g" "$corpus/$p.json" >"$W/$p.json"; done
LOCKED=$W/locked/sandshim-locked-file

# split_cases FILE: one file per case in $W/cases (NNNN.sh), with NNNN.class and NNNN.beyond.
split_cases() {
  local class=none beyond=0 n=0 block=0 buf=""
  emit() { n=$((n + 1)); local f; f=$(printf '%s/cases/%04d' "$W" "$n")
           printf '%s' "$1" >"$f.sh"; echo "$class" >"$f.class"; echo "$beyond" >"$f.beyond"; beyond=0; }
  while IFS= read -r line || [ -n "$line" ]; do
    if [ "$block" = 1 ]; then
      if [ "$line" = "%}" ]; then block=0; emit "$buf"; buf=""; else buf+="$line"$'\n'; fi
      continue
    fi
    case $line in
      "#"*|"") ;;
      "@class "*) class=${line#@class } ;;
      "@beyond") beyond=1 ;;
      "%{") block=1 ;;
      *) emit "$line" ;;
    esac
  done <"$1"
}

# subst POLICY SCRIPT: the script with the policy's placeholders filled in.
subst() {
  local x r
  case $1 in
    example) x=curl r=/etc/shadow ;;
    dev) x=wget r=$W/secret/sandshim-secret-key ;;
    reviewer) x=evil r=$W/secret/sandshim-secret-key ;;
  esac
  local s=$2
  s=${s//@RD/${r%/*}} s=${s//@RB/${r##*/}} s=${s//@R/$r}
  s=${s//@WD/${LOCKED%/*}} s=${s//@WB/${LOCKED##*/}} s=${s//@W/$LOCKED}
  s=${s//@X/$x}
  printf '%s' "$s"
}

TRACE=execve,execveat,open,openat,creat,truncate,rename,renameat,renameat2,unlink,unlinkat,link,linkat,symlink,symlinkat,mkdir,mkdirat,chmod,fchmodat,utimensat
# ran POLICY SHELL... SCRIPT: exit 0 when the shell did what the policy refuses.
ran() {
  local policy=$1 x rb; shift
  case $policy in example) x=curl rb=shadow ;; dev) x=wget rb=sandshim-secret-key ;; *) x=evil rb=sandshim-secret-key ;; esac
  rm -rf "$W/locked" "$W/ws" && mkdir -p "$W/locked" "$W/ws" && echo locked >"$LOCKED"
  chmod 777 "$W/locked" "$W/ws" && chmod 666 "$LOCKED" && : >"$W/trace" && chmod 666 "$W/trace"
  (cd "$W/ws" && HOME=$W/ws PATH=$W/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
     timeout -k 1 5 "${RUNAS[@]}" strace -f -qq -o "$W/trace" -e trace=$TRACE "$@" </dev/null >/dev/null 2>&1)
  grep -qE "execve(at)?\(([0-9A-Z_]+, )?\"([^\"]*/)?$x\"" "$W/trace" && return 0
  grep -qE "(open|openat|openat2)\([^\"]*\"([^\"]*/)?$rb\"" "$W/trace" && return 0
  grep -E "\"([^\"]*/)?sandshim-locked-file\"" "$W/trace" |
    grep -qvE "(open|openat)\([^)]*O_RDONLY[^)]*\)|^[0-9]+ +(execve|openat?)\([^)]*ENOENT" && return 0
  return 1
}

judge() {  # judge POLICY SCRIPT: allow|ask|deny
  "$BIN" policy check --policy "$W/$1.json" --workspace "$W/ws" -- sh -c "$2" 2>/dev/null | jq -r .decision 2>/dev/null || echo error
}

split_cases "$corpus/bypass.txt"
[ -n "${ONLY_ORDINARY:-}" ] && rm -f "$W"/cases/*
declare -A T
fails=0 beyond_allowed=0
out=$W/table
for f in "$W"/cases/*.sh; do
  [ -e "$f" ] || continue
  base=${f%.sh} class=$(cat "$base.class") beyond=$(cat "$base.beyond") raw=$(cat "$f")
  for p in example dev reviewer; do
    s=$(subst "$p" "$raw")
    real=""
    ran "$p" dash -c "$s" && real+=" dash"
    ran "$p" busybox sh -c "$s" && real+=" busybox"
    ran "$p" bash -c "$s" && real+=" bash"
    d=$(judge "$p" "$s")
    T[$class/$p/n]=$((${T[$class/$p/n]:-0} + 1))
    [ -z "$real" ] && continue
    T[$class/$p/real]=$((${T[$class/$p/real]:-0} + 1))
    T[$class/$p/$d]=$((${T[$class/$p/$d]:-0} + 1))
    if [ "$d" != ask ] && [ "$d" != deny ]; then
      if [ "$beyond" = 1 ]; then
        beyond_allowed=$((beyond_allowed + 1))
        echo "beyond  [$p] $d (ran in:$real): $(printf '%s' "$s" | tr '\n' '|')"
      else
        fails=$((fails + 1))
        echo "FAIL    [$p] $d (ran in:$real): $(printf '%s' "$s" | tr '\n' '|')"
      fi
    fi
  done
done
classes=$(cat "$W"/cases/*.class | awk '!seen[$0]++')
{
  printf '%-34s %-9s %5s %5s %5s %5s %5s\n' class policy tried real allow ask deny
  for c in $classes; do
    for p in example dev reviewer; do
      printf '%-34s %-9s %5s %5s %5s %5s %5s\n' "$c" "$p" "${T[$c/$p/n]:-0}" "${T[$c/$p/real]:-0}" \
        "${T[$c/$p/allow]:-0}" "${T[$c/$p/ask]:-0}" "${T[$c/$p/deny]:-0}"
    done
  done
} >"$out"
cat "$out"
[ -n "${REPORT:-}" ] && cp "$out" "$REPORT"
echo "bypass attempts: $(ls "$W"/cases/*.sh 2>/dev/null | wc -l) scripts x 3 policies; allowed though real: $fails (beyond the parser: $beyond_allowed)"

# Ordinary commands under dev.json: all allowed.
rm -rf "$W/cases" && mkdir "$W/cases"
split_cases "$corpus/ordinary.txt"
not_allowed=0 total=0
for f in "$W"/cases/*.sh; do
  total=$((total + 1))
  d=$(judge dev "$(cat "$f")")
  [ "$d" = allow ] || { not_allowed=$((not_allowed + 1)); echo "ORDINARY $d: $(tr '\n' '|' <"$f")"; }
done
echo "ordinary commands: $total, allowed $((total - not_allowed)), not allowed $not_allowed"
# Ordinary commands the parser cannot judge before they run: asked, not allowed, not denied.
rm -rf "$W/cases" && mkdir "$W/cases"
split_cases "$corpus/ordinary-asks.txt"
not_asked=0
for f in "$W"/cases/*.sh; do
  d=$(judge dev "$(cat "$f")")
  [ "$d" = ask ] || { not_asked=$((not_asked + 1)); echo "ORDINARY-ASK $d: $(tr '\n' '|' <"$f")"; }
done
echo "ordinary commands that must ask: $(ls "$W"/cases/*.sh | wc -l), not asked $not_asked"
[ "$fails" = 0 ] && [ "$not_allowed" = 0 ] && [ "$not_asked" = 0 ]
