// Descriptors over unix sockets (SCM_RIGHTS) and whole-buffer reads and writes, for the
// client, the broker and the outside half.
#pragma once

#include <cstddef>
#include <string>

namespace sandshim::ctx {

// Sends len bytes (at least one) with nfds descriptors attached to the first of them.
bool SendWithFds(int sock, const void* data, size_t len, const int* fds, int nfds);
// Receives up to len bytes and at most max_fds descriptors (made close-on-exec); returns the
// bytes read (0 at EOF, -1 on error) and sets *nfds. Extra descriptors are closed. flags:
// recvmsg's (MSG_DONTWAIT).
long RecvWithFds(int sock, void* data, size_t len, int* fds, int max_fds, int* nfds, int flags = 0);
bool WriteAll(int fd, const void* data, size_t len);
bool ReadAll(int fd, void* data, size_t len);
// One line to stderr: "sandshim-ctx: <what>[: <strerror(err)>]".
void Say(const std::string& what, int err = 0);

}  // namespace sandshim::ctx
