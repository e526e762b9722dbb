// One forwarded egress connection, in a process of its own (broker.cc): the bytes a context's client sends
// to its loopback proxy port go to the relay link and back, unchanged (the relay tells
// contexts apart by the proxy credentials in them), each direction closed when its source is.
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctx-helper/fdpass.h"
#include "ctx-helper/helper.h"

namespace sandshim::ctx {

void Pump(int a, int b) {
  char buf[64 * 1024];
  bool open[2] = {true, true};  // a→b, b→a
  while (open[0] || open[1]) {
    pollfd p[2] = {{open[0] ? a : -1, POLLIN, 0}, {open[1] ? b : -1, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int d = 0; d < 2; ++d) {
      if (!open[d] || !p[d].revents) continue;
      int from = d == 0 ? a : b, to = d == 0 ? b : a;
      ssize_t n = ::read(from, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || !WriteAll(to, buf, n)) {
        open[d] = false;
        ::shutdown(to, SHUT_WR);
        if (n < 0) open[0] = open[1] = false;  // a reset: both ways end
      }
    }
  }
  ::close(a);
  ::close(b);
}

}  // namespace sandshim::ctx
