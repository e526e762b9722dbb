// The relay's seccomp allow-list (review M12): after DropRelayPrivileges the relay parses
// HTTP a sandbox wrote, so what a bug in that parser could reach is cut down to what a relay
// does. The list is what strace showed a relay using after its drop (copy and splice
// tunnels, CONNECT and plain HTTP, the system resolver's thread reading /etc/hosts and
// resolv.conf and asking DNS), plus the calls those paths may take on another libc build:
//  - sockets of the IP families, unix (nscd) and netlink (getaddrinfo's AI_ADDRCONFIG) only;
//    connect/accept/send/recv/poll/epoll/timerfd/eventfd/pipe2/splice; ioctl FIONBIO/FIONREAD;
//  - files opened read-only, never created; memory, signals, futex, time, exit;
//  - threads through clone without namespace flags (clone3 answers ENOSYS so glibc falls
//    back to clone, whose flags a filter can see), tgkill of itself only.
// Everything else (ptrace, kill of another uid-65534 process, unshare/setns, bpf, mount,
// keyctl, io_uring, execve...) fails with EPERM. Loaded with TSYNC, after NO_NEW_PRIVS.
#pragma once

#include "shim/core/result.h"

namespace sandshim::net {

Status LoadRelaySeccomp();

}  // namespace sandshim::net
