// sandshim-ctx: the static helper that runs inside a gVisor sandbox as a credential context's
// init (docs/CONTEXTS.md, "The context broker"). Built on its own (-static, no Boost) and
// embedded into sandshim, which writes it out once under its state root.
//   init [--forward PORT=ADDR:PORT]   the context container's init: the outside half (the
//                                     sandbox's root network namespace) and the broker (the
//                                     context's own namespace)
// A session exec into the context runs the client (ctx-helper/run/, bound at /.sshim/run), a
// program of its own: it has no libc, so it starts cheaply.
#pragma once

#include <netinet/in.h>

#include <cstdint>

namespace sandshim::ctx {

// Egress: a port on the context's loopback whose connections are carried, byte for byte, to
// an address the sandbox's root namespace reaches (the session's relay link).
struct Forward {
  uint16_t listen_port = 0;  // 0: none
  sockaddr_in target{};
};
// Capabilities (a mask of their numbers) out of every set, the bounding one first (CAP_SETPCAP
// last, as it is what drops the others). False if one could not be dropped.
bool DropCaps(uint64_t mask);
// The context container's init; returns only on failure (or at the end of the context).
// init_caps: the capabilities the init holds for the broker only (the session's spec does not
// give them): the outside half drops them all; the broker drops CAP_SYS_ADMIN once its
// namespace is made and keeps the rest to start commands (which never get them).
int RunInit(const Forward& f, uint64_t init_caps);

// The broker half: in a network namespace of its own (made here), with `link` the socket to
// the outside half, which hands it connected upstream sockets for the forward.
[[noreturn]] void RunBroker(const Forward& f, int link, uint64_t init_caps);
// One forwarded connection: bytes both ways until both ends have closed.
void Pump(int a, int b);

}  // namespace sandshim::ctx
