// `session exec --tty`: the command gets a terminal, whatever our own stdio is. The backend
// makes it (native: inside the container; gVisor: a host pty runsc presents as one) and
// hands the handle its master; we put our own terminal (if any) in raw mode, copy keys to
// the master and the master to our stdout, and pass window-size changes on. Deadline and
// exit status work as without a tty.
#pragma once

#include <termios.h>

#include <memory>

#include "shim/session/exec/supervise.h"

namespace sandshim::session {

// Streams over the terminal of the started command (Running::TerminalMaster).
std::unique_ptr<Streams> TerminalStreams();

// fd's terminal (when it is one) in raw mode while alive, restored on every path.
class RawMode {
 public:
  explicit RawMode(int fd);
  ~RawMode();
  RawMode(const RawMode&) = delete;
  RawMode& operator=(const RawMode&) = delete;

 private:
  int fd_;
  bool raw_ = false;
  termios saved_{};
};

}  // namespace sandshim::session
