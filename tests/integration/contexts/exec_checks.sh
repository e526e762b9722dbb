# Sourced by contexts_test.sh (its S, px, ux, setup, WORK, ROOT): issue #31's checks on what a
# context's exec leaves behind and what stays on the host.

# Every host process's environ holding $1: "PID CMDLINE" lines (our own shell's excluded: it
# never holds the value, which is only on the command lines' prefixes below).
environ_hits() { # VALUE [all]
  local f pid ours
  # Without "all": the context's own processes are left out (its commands hold the value, by
  # design). With "all", after its execs ended: every process, a native context's init (on the
  # host, in the context's pid namespace, for the context's life) included.
  ours=$(readlink /proc/self/ns/pid)
  for f in /proc/[0-9]*/environ; do
    pid=${f#/proc/}; pid=${pid%/environ}
    [ "$pid" != "$$" ] && [ "$pid" != "$BASHPID" ] || continue
    [ "${2:-}" = all ] || [ "$(readlink "/proc/$pid/ns/pid" 2>/dev/null)" = "$ours" ] || continue
    grep -qaF -- "$1" "$f" 2>/dev/null && echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | head -c 120)"
  done
}

# A context's --env value, taken from sandshim's environment (`--env K`, so never on argv),
# sits in no host process's environ once the create returned (gVisor: the container's waiter
# is forked from the create and lives as long as the context; native: the context's relay).
# Control: the same scan finds the value in a process that holds it.
ctx_host_environ() { # BACKEND
  local sid=$(uniq_name henv) ws=$WORK/ws-henv v hits seen
  v=hostenv-$(head -c 9 /dev/urandom | od -An -tx1 | tr -d ' \n')
  mkdir -p "$ws" && chmod 777 "$ws"
  HOSTENV_CTRL=$v sleep 60 &
  local ctl=$!
  wait_until 5 sh -c "grep -qaF $v /proc/$ctl/environ"
  hits=$(environ_hits "$v")
  kill "$ctl"; wait "$ctl" 2>/dev/null
  assert_contains "$hits" "$ctl " "control: the scan finds the value in a process's environ" || return
  S --backend "$(real_backend "$1")" session create "$sid" --rootfs "$WORK/rootfs" --workspace "$ws" --network proxy \
    >/dev/null || return $(fail "session create")
  HOSTENV=$v S session context create "$sid" platform --env HOSTENV >/dev/null ||
    { S session delete "$sid" >/dev/null; return $(fail "context create"); }
  seen=$(S session exec --context platform "$sid" -- sh -c 'echo $HOSTENV')
  [ "$1" = native ] || refill_done "$sid"
  hits=$(environ_hits "$v")
  local all
  all=$(environ_hits "$v" all)
  S session delete "$sid" >/dev/null || return $(fail "session delete")
  assert_eq "$v" "$seen" "control: the context has the value" || return
  assert_eq "" "$hits" "host processes holding the context's --env value in their environ" || return
  assert_eq "" "$all" "processes holding it once its exec ended (a native context's init included)" || return
}

# No lingering deputies (issue #31): what a named context's exec starts ends with it, a
# double-forked, setsid'd daemon (daemon(3), what a planted hook would leave) included, unless
# the exec asked to keep it (--keep: control, the same daemon survives and the same probe sees
# it). The platform sees what runs in its context (session context ps). The default (user)
# context keeps its background processes, as before.
ctx_leftovers() {
  local daemon='(setsid sleep %s </dev/null >/dev/null 2>&1 &); (sleep %s </dev/null >/dev/null 2>&1 &); true'
  pxk "$(printf "$daemon" 4801 4802)" || return $(fail "exec --keep")
  px "$(printf "$daemon" 4803 4804)" || return $(fail "exec")
  local seen=$(px 'ps -o args')
  assert_contains "$seen" "sleep 4801" "control: --keep's setsid'd daemon runs on" || return
  assert_contains "$seen" "sleep 4802" "control: --keep's double-forked process runs on" || return
  assert_not_contains "$seen" "sleep 4803" "the setsid'd daemon after its exec ended" || return
  assert_not_contains "$seen" "sleep 4804" "the double-forked process after its exec ended" || return
  # A hook's daemon whose exec went on using it: alive while the exec runs, gone after.
  local during=$(px "$(printf "$daemon" 4805 4806); sleep 0.3; ps -o args")
  assert_contains "$during" "sleep 4805" "the daemon while its exec runs" || return
  assert_not_contains "$(px 'ps -o args')" "sleep 4805" "the daemon after its exec ended" || return
  local table=$(S session context ps "$SID" platform)
  assert_contains "$table" "sleep" "session context ps: the platform's kept processes" || return
  ux "$(printf "$daemon" 4807 4808)"
  assert_contains "$(ux 'ps -o args')" "sleep 4807" "the default context keeps its background processes" || return
}

# Writable paths outside the workspace and /tmp are each context's own (issue #31; native used
# to run every context on the session's one upper layer): a file the platform writes in
# /var/tmp or /run/lock is not in the user context, nor the other way round. Controls: each
# context reads its own file back in a later exec; the workspace does cross.
ctx_layer() {
  local pr="S session exec --user 0 --context platform $SID -- sh -c" ur="S session exec --user 0 $SID -- sh -c"
  $pr 'mkdir -p /run/lock && echo p >/var/tmp/plat-file && echo p >/run/lock/plat-file && echo p >/workspace/plat-ws' ||
    return $(fail "platform writes")
  $ur 'mkdir -p /run/lock && echo u >/var/tmp/user-file && echo u >/run/lock/user-file' || return $(fail "user writes")
  assert_eq "p p" "$($pr 'cat /var/tmp/plat-file /run/lock/plat-file' | tr '\n' ' ' | sed 's/ $//')" \
    "control: the platform reads its own files in a later exec" || return
  assert_eq "u u" "$($ur 'cat /var/tmp/user-file /run/lock/user-file' | tr '\n' ' ' | sed 's/ $//')" \
    "control: the user reads its own files in a later exec" || return
  assert_eq p "$($ur 'cat /workspace/plat-ws')" "control: the workspace crosses" || return
  assert_eq "" "$($ur 'ls /var/tmp/plat-file /run/lock/plat-file 2>/dev/null')" "the platform's files from the user context" || return
  assert_eq "" "$($pr 'ls /var/tmp/user-file /run/lock/user-file 2>/dev/null')" "the user's files from the platform context" || return
}
