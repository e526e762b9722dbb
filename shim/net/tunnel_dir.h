// One direction of a relayed connection: bytes read from one socket and not yet written to
// the other, through a pipe (--relay-mode splice) or a buffer (copy, the default).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace sandshim::net {

struct TunnelDir {
  int pipe[2] = {-1, -1};
  size_t held = 0;  // bytes read from src, not yet written to dst
  bool eof = false, done = false;
  uint64_t bytes = 0;
  std::vector<char> copybuf;
  size_t off = 0;
  // Bytes still to be read from src and forwarded; unset: no limit (CONNECT tunnels and
  // answers). A plain-HTTP request's body: nothing after it is read.
  std::optional<uint64_t> limit;

  TunnelDir() = default;
  TunnelDir(const TunnelDir&) = delete;
  TunnelDir& operator=(const TunnelDir&) = delete;
  ~TunnelDir();
  bool OpenPipe();
  // src -> held: read(2) into the buffer, or splice(2) into the pipe; as read(2) returns.
  ssize_t Fill(int fd, bool splice);
  // held -> dst; as send(2) returns.
  ssize_t Drain(int fd, bool splice);
};

}  // namespace sandshim::net
