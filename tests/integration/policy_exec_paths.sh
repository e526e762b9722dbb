# Sourced by policy_test.sh: the exec guard judges the file the kernel really starts, not a
# path string (polred2 F7, F8, F10). Each under policy-exec.json (id denied, sh and awk allowed),
# reached through awk's system() (asked, then approved once: the front door never sees id), in the Debian
# image (coreutils' id and true are distinct files; busybox's are one). GX_OFF=1 is the
# positive control: the same with the guard off (SANDSHIM_TEST_NO_EXEC_GUARD=1) runs id.

# F7: a script whose #! line names id. The execve names the script; the kernel starts id with
# the script as its operand (`id: '/workspace/t.sh': no such user` on stderr is id running).
# Refused at the exec event (the interpreter is /proc/PID/exe there), audited as "loaded".
p_exec_shebang() {
  GX_OFF=$1
  printf '#!/usr/bin/id\n' >"$PX_WS/t.sh" && chmod 755 "$PX_WS/t.sh"
  approve_ask awk 'BEGIN { system("/workspace/t.sh 2> /workspace/ran-shebang") }' || { fail "awk system() was not asked about"; return; }  # the front door asks (polred2 F5)
  gx awk 'BEGIN { system("/workspace/t.sh 2> /workspace/ran-shebang") }' >/dev/null 2>&1
  if [ "$GX_OFF" = 1 ]; then
    assert_contains "$(cat "$PX_WS/ran-shebang")" "no such user" "control: id ran as the script's interpreter"
    return
  fi
  assert_not_contains "$(cat "$PX_WS/ran-shebang")" "no such user" "id ran as a #! interpreter" || return
  audit execve | jq -se 'any(.[]; .rule == "shell(id:*)" and .stage == "loaded" and .path == "/usr/bin/id")' >/dev/null ||
    fail "the interpreter's refusal is audited at the exec event: $(audit execve)"
}

# F8: paths the tracer would resolve in its own process. fd 3 is id, opened by the shell; each
# form names it through the exec'ing process's /proc/self. /proc/self/cwd/id from /usr/bin is
# there for the process (it was refused as absent: sh said "not found"). A script file: the
# guard unwraps `sh -c STRING` as the front door does, and would refuse the string itself.
p_exec_procfd() {
  GX_OFF=$1
  cat >"$PX_WS/procfd.sh" <<'S'
exec 3</usr/bin/id
/proc/self/fd/3 > /workspace/ran-procfd
/dev/fd/3 > /workspace/ran-devfd
/proc/thread-self/fd/3 > /workspace/ran-threadself
cd /usr/bin && /proc/self/cwd/id > /workspace/ran-cwd 2> /workspace/err-cwd
S
  approve_ask awk 'BEGIN { system("sh /workspace/procfd.sh") }' || { fail "awk system() was not asked about"; return; }  # the front door asks (polred2 F5)
  gx awk 'BEGIN { system("sh /workspace/procfd.sh") }' >/dev/null 2>&1
  ran_by_guard procfd devfd threadself cwd || return
  [ "$GX_OFF" = 1 ] && return
  assert_not_contains "$(cat "$PX_WS/err-cwd")" "not found" "/proc/self/cwd/id is refused, not missing" || return
  audit execve | jq -se 'any(.[]; .rule == "shell(id:*)" and .stage == "execve" and .path == "/usr/bin/id")' >/dev/null ||
    fail "refused at the execve stop (EPERM), named by the file it links to: $(audit execve)"
}

# F10: a second process (python3, renaming links in a loop: no exec per flip) flips a link
# between true and id while a shell execs the link 200 times; each id that runs adds a line.
# The check at the execve stop can lose this race (the kernel looks the path up again); the
# exec event's cannot: 0 lines. Control: guard off, id runs (> 0).
p_exec_race() {
  local n
  GX_OFF=$1
  cat >"$PX_WS/flip.py" <<'S'
import os
os.makedirs("/tmp/r", exist_ok=True)
while True:
    for target in ("/usr/bin/id", "/usr/bin/true"):
        os.symlink(target, "/tmp/r/n")
        os.rename("/tmp/r/n", "/tmp/r/l")
S
  cat >"$PX_WS/race.sh" <<'S'
python3 /workspace/flip.py & f=$!
while [ ! -e /tmp/r/l ]; do :; done
i=0
while [ $i -lt 200 ]; do /tmp/r/l >> /workspace/ran-race 2>/dev/null; i=$((i + 1)); done
kill $f
S
  approve_ask awk 'BEGIN { system("sh /workspace/race.sh") }' || { fail "awk system() was not asked about"; return; }  # the front door asks (polred2 F5)
  gx awk 'BEGIN { system("sh /workspace/race.sh") }' >/dev/null 2>&1
  n=$(cat "$PX_WS/ran-race" 2>/dev/null | wc -l)
  log "race: id ran $n of 200 (guard off: $GX_OFF); killed at the exec event: $(audit execve | jq -s 'map(select(.stage == "loaded")) | length')"
  if [ "$GX_OFF" = 1 ]; then
    [ "$n" -gt 0 ] || fail "control: id never ran through the flipped link"
  else
    assert_eq 0 "$n" "id runs through a link flipped after the check"
  fi
}
