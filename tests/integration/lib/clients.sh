# shellcheck shell=bash
# What the real-client suites (docker_test.sh, podman_test.sh, ctr_test.sh) share: the
# after-check that every container is gone and nothing leaked, and the checks every
# client must pass the same way. Sourced after common.sh. A suite defines:
#   client_run CMD...        a one-shot (--rm) container of the test image running CMD;
#                            leaves OUT, ERR and RC (see capture in common.sh)
#   client_leftovers         prints the ids of the containers still there
#   client_remove ID...      removes them, quietly and idempotently
#   client_run_as UID CMD... (optional) client_run as that user
# and sets CLIENT (a word for messages, e.g. "docker") and MISSING_COMMAND_STATUS: 127
# where the client reports a command that is not there as exit 127 (docker, podman), or
# "error" where the task fails to start and the client prints the runtime's error (ctr).

# AFTER_CHECK_HOOK for the client suites: containers must be gone (checks remove their
# own) and nothing they started may outlive them. Leftovers are removed, then blamed.
client_after_check() {
  local left msg=""
  left=$(client_leftovers 2>/dev/null)
  if [ -n "$left" ]; then
    # shellcheck disable=SC2086 # one id per word
    client_remove $left
    # shellcheck disable=SC2086,SC2116 # the echo joins the ids on one line
    msg="containers left behind: $(echo $left)"
  fi
  leaks_since_baseline || msg="${msg:+$msg; }$REASON"
  [ -z "$msg" ] || fail "$msg"
}

check_echo() {
  client_run echo "hello-$CLIENT"
  assert_eq 0 "$RC" "exit status ($ERR)" && assert_eq "hello-$CLIENT" "$OUT" "stdout"
}

check_exit_code() {
  client_run sh -c 'echo before-exit; exit 3'
  assert_eq 3 "$RC" "exit status ($ERR)" && assert_eq before-exit "$OUT" "stdout"
}

check_missing_command() {
  client_run /no/such/binary
  if [ "${MISSING_COMMAND_STATUS:-127}" = error ]; then
    assert_ne 0 "$RC" "exit status" || return
    assert_contains "$ERR" "no such file" "error message"
    return
  fi
  assert_eq 127 "$RC" "absolute path: exit status ($ERR)" || return
  client_run no-such-command-xyz
  assert_eq 127 "$RC" "PATH lookup: exit status ($ERR)"
}

check_not_executable() {
  # A path that is there but cannot be run (no x bit, a directory): runc says "permission
  # denied" at create, which docker and podman report as 126 (not 127: it is not missing).
  client_run /etc/passwd
  if [ "${MISSING_COMMAND_STATUS:-127}" = error ]; then
    assert_ne 0 "$RC" "exit status" && assert_contains "$ERR" "permission denied" "error message"
    return
  fi
  assert_eq 126 "$RC" "a file without x bits: exit status ($ERR)" || return
  client_run /etc
  assert_eq 126 "$RC" "a directory: exit status ($ERR)"
}

check_home() {
  # The process gets no HOME from docker or ctr: the runtime sets the user's from the
  # image's /etc/passwd (runc's setupUser), "/" for a uid it does not list.
  # shellcheck disable=SC2016 # expanded in the container
  client_run sh -c 'echo "$HOME"'
  assert_eq /root "$OUT" "root's HOME ($ERR)" || return
  declare -F client_run_as >/dev/null || return 0  # ctr run has no --user
  # shellcheck disable=SC2016
  client_run_as 1000 sh -c 'echo "$HOME"'
  assert_eq /home/user "$OUT" "uid 1000's HOME ($ERR)"
}
