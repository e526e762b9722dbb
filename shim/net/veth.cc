#include "shim/net/veth.h"

#include <arpa/inet.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "shim/core/unique_fd.h"
#include "shim/linux/netns.h"

namespace sandshim::net {

namespace {

// Appends netlink attributes to a message, 4-byte aligned, with nesting: Begin returns the
// offset of the nest's header, End writes its final length.
class Attrs {
 public:
  explicit Attrs(std::vector<char>& buf) : buf_(buf) {}
  void Put(uint16_t type, const void* data, size_t len) {
    size_t at = Begin(type);
    Raw(data, len);
    End(at);
  }
  void PutString(uint16_t type, const std::string& s) { Put(type, s.c_str(), s.size() + 1); }
  void PutU32(uint16_t type, uint32_t v) { Put(type, &v, sizeof v); }
  size_t Begin(uint16_t type) {
    size_t at = buf_.size();
    nlattr a{0, type};
    Raw(&a, sizeof a);
    return at;
  }
  void End(size_t at) {
    auto len = static_cast<uint16_t>(buf_.size() - at);
    std::memcpy(buf_.data() + at, &len, sizeof len);
    buf_.resize(NLMSG_ALIGN(buf_.size()), 0);
  }
  void Raw(const void* data, size_t len) {
    const char* p = static_cast<const char*>(data);
    buf_.insert(buf_.end(), p, p + len);
  }

 private:
  std::vector<char>& buf_;
};

// A socket made inside ns (it keeps that namespace for its life), for the interface ioctls.
Result<UniqueFd> SocketIn(const std::filesystem::path& ns) {
  auto ns_fd = TRY(OpenNetns(ns));
  UniqueFd s;
  TRY(InNetns(ns_fd.get(), [&]() -> Status {
    s = UniqueFd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    return s.valid() ? Ok() : ErrnoError("socket");
  }));
  return s;
}

ifreq Request(const std::string& name) {
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, name.c_str(), IFNAMSIZ - 1);
  return ifr;
}

sockaddr_in Inet(in_addr_t a) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = a;
  return sin;
}

}  // namespace

std::vector<char> VethRequest(const std::string& a_name, int a_fd, const std::string& b_name, int b_fd, uint32_t seq) {
  std::vector<char> buf(NLMSG_HDRLEN, 0);
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  Attrs m(buf);
  m.Raw(&ifi, sizeof ifi);
  m.PutString(IFLA_IFNAME, a_name);
  m.PutU32(IFLA_NET_NS_FD, static_cast<uint32_t>(a_fd));
  size_t info = m.Begin(IFLA_LINKINFO);
  m.PutString(IFLA_INFO_KIND, "veth");
  size_t data = m.Begin(IFLA_INFO_DATA);
  size_t peer = m.Begin(VETH_INFO_PEER);
  m.Raw(&ifi, sizeof ifi);  // the peer's own ifinfomsg comes before its attributes
  m.PutString(IFLA_IFNAME, b_name);
  m.PutU32(IFLA_NET_NS_FD, static_cast<uint32_t>(b_fd));
  m.End(peer);
  m.End(data);
  m.End(info);
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(buf.size());
  h.nlmsg_type = RTM_NEWLINK;
  h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
  h.nlmsg_seq = seq;
  std::memcpy(buf.data(), &h, sizeof h);
  return buf;
}

Status CreateVeth(const VethEnd& a, const VethEnd& b) {
  if (a.name.empty() || a.name.size() >= IFNAMSIZ || b.name.empty() || b.name.size() >= IFNAMSIZ)
    return MakeError("veth: interface names must be 1-15 characters", EINVAL);
  auto a_fd = TRY(OpenNetns(a.netns));
  auto b_fd = TRY(OpenNetns(b.netns));
  UniqueFd nl(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (!nl.valid()) return ErrnoError("veth: netlink socket");
  auto req = VethRequest(a.name, a_fd.get(), b.name, b_fd.get(), 1);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(nl.get(), req.data(), req.size(), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0)
    return ErrnoError("veth: send RTM_NEWLINK");
  // The kernel answers with one NLMSG_ERROR whose error is 0 on success (we asked for an ACK).
  alignas(nlmsghdr) char reply[4096];
  ssize_t n;
  while ((n = ::recv(nl.get(), reply, sizeof reply, 0)) < 0 && errno == EINTR) {
  }
  if (n < 0) return ErrnoError("veth: receive the netlink answer");
  auto* h = reinterpret_cast<nlmsghdr*>(reply);
  if (!NLMSG_OK(h, static_cast<size_t>(n)) || h->nlmsg_type != NLMSG_ERROR)
    return MakeError("veth: unexpected netlink answer", EPROTO);
  int err = -static_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
  if (err != 0) return ErrnoError("veth " + a.name + "/" + b.name, err);
  return Ok();
}

Status SetIPv4(const std::filesystem::path& ns, const std::string& name, const std::string& addr, int prefix) {
  in_addr a{};
  if (::inet_pton(AF_INET, addr.c_str(), &a) != 1 || prefix < 1 || prefix > 32)
    return MakeError("bad IPv4 address " + addr + "/" + std::to_string(prefix), EINVAL);
  auto s = TRY(SocketIn(ns));
  std::string what = name + " in " + ns.string();
  ifreq ifr = Request(name);
  auto sin = Inet(a.s_addr);
  std::memcpy(&ifr.ifr_addr, &sin, sizeof sin);
  if (::ioctl(s.get(), SIOCSIFADDR, &ifr) != 0) return ErrnoError("set the address of " + what);
  ifr = Request(name);
  sin = Inet(htonl(prefix == 32 ? 0xffffffffu : ~(0xffffffffu >> prefix)));
  std::memcpy(&ifr.ifr_netmask, &sin, sizeof sin);
  if (::ioctl(s.get(), SIOCSIFNETMASK, &ifr) != 0) return ErrnoError("set the netmask of " + what);
  ifr = Request(name);
  if (::ioctl(s.get(), SIOCGIFFLAGS, &ifr) != 0) return ErrnoError("read the flags of " + what);
  ifr.ifr_flags |= IFF_UP;
  if (::ioctl(s.get(), SIOCSIFFLAGS, &ifr) != 0) return ErrnoError("bring up " + what);
  return Ok();
}

Result<std::string> GetIPv4(const std::filesystem::path& ns, const std::string& name) {
  auto s = TRY(SocketIn(ns));
  ifreq ifr = Request(name);
  if (::ioctl(s.get(), SIOCGIFADDR, &ifr) != 0) {
    if (errno == EADDRNOTAVAIL) return std::string();
    return ErrnoError("read the address of " + name + " in " + ns.string());
  }
  sockaddr_in sin;
  std::memcpy(&sin, &ifr.ifr_addr, sizeof sin);
  char text[INET_ADDRSTRLEN];
  return std::string(::inet_ntop(AF_INET, &sin.sin_addr, text, sizeof text));
}

}  // namespace sandshim::net
