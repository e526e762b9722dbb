# shellcheck shell=bash
# Sourced by contexts_test.sh (ux, px, fail, assert_eq from there).
# SysV IPC keys (ctxred2 F3): on gVisor every context container is in the sandbox's one IPC
# namespace unless the context's init makes its own; a key the platform uses could be
# squatted (the user's 0666 segment handed to the platform's IPC_CREAT|0600) or read.
shm_has() { echo "perl -e 'exit(defined shmget(0x$1, 0, 0) ? 0 : 3)'"; }  # KEY: exit 0 if it exists
chk_sysv_ipc() {
  ux "perl -e 'defined shmget(0x5e11, 4096, 01666) or die \"shmget: \$!\"'" || return $(fail "the user's shmget")
  ux "$(shm_has 5e11)" || return $(fail "control: the user's next exec does not see its own segment")
  px "$(shm_has 5e11)"; assert_eq 3 "$?" "the platform sees the user's segment (squattable key)" || return
  px "perl -e 'defined shmget(0x5e12, 4096, 01666) or die \"shmget: \$!\"'" || return $(fail "the platform's shmget")
  px "$(shm_has 5e12)" || return $(fail "control: the platform's next exec does not see its own segment")
  ux "$(shm_has 5e12)"; assert_eq 3 "$?" "the user sees the platform's segment" || return
  ux "perl -e 'shmctl(shmget(0x5e11,0,0), 0, 0)'"; px "perl -e 'shmctl(shmget(0x5e12,0,0), 0, 0)'"; true
}
