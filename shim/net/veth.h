// A veth pair between two network namespaces, and an IPv4 address on one of its ends, without
// the `ip` binary: one rtnetlink RTM_NEWLINK message makes the pair with each end already in
// its namespace (IFLA_NET_NS_FD on the device and on its peer), so neither name ever appears
// in the namespace of the caller; the address is set with the ioctls `ifconfig` uses, on a
// socket made inside the end's namespace.
//
// A pair needs no journal entry of its own: it lives only as long as both namespaces do, and
// removing either namespace (whose journal entries already exist) destroys both ends.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::net {

struct VethEnd {
  std::filesystem::path netns;  // a namespace file (shim/linux/netns.h)
  std::string name;             // the interface name inside that namespace
};

// The RTM_NEWLINK request that creates the pair with a in a_fd's and b in b_fd's namespace
// (pure: the bytes on the wire, unit-tested).
std::vector<char> VethRequest(const std::string& a_name, int a_fd, const std::string& b_name, int b_fd, uint32_t seq);

// Creates the pair. EEXIST when a name is taken in its namespace.
Status CreateVeth(const VethEnd& a, const VethEnd& b);
// Gives the interface `name` in ns the address ADDR/prefix and brings it up; setting the same
// address again is a no-op, so this is safe to repeat.
Status SetIPv4(const std::filesystem::path& ns, const std::string& name, const std::string& addr, int prefix);
// The IPv4 address of `name` in ns, or "" when it has none.
Result<std::string> GetIPv4(const std::filesystem::path& ns, const std::string& name);

}  // namespace sandshim::net
