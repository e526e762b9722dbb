// The veth pair of a session's relay link, by pure code: the RTM_NEWLINK request's bytes, and
// bad input refused before any syscall that could leave something behind.
#include <doctest/doctest.h>

#include <cstring>

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#include "shim/linux/netns.h"
#include "shim/net/veth.h"

using namespace sandshim::net;

// Walks the attributes in [p, end), calling f(type, payload, payload length) for each.
template <typename F>
static void EachAttr(const char* p, const char* end, F f) {
  while (p + sizeof(nlattr) <= end) {
    auto* a = reinterpret_cast<const nlattr*>(p);
    REQUIRE(a->nla_len >= sizeof(nlattr));
    REQUIRE(p + a->nla_len <= end);
    f(a->nla_type, p + NLA_HDRLEN, a->nla_len - NLA_HDRLEN);
    p += NLA_ALIGN(a->nla_len);
  }
}

TEST_CASE("net: the veth request names both ends and puts each in its namespace") {
  auto buf = VethRequest("relay0", 7, "eth0", 9, 42);
  REQUIRE(buf.size() >= NLMSG_HDRLEN + sizeof(ifinfomsg));
  auto* h = reinterpret_cast<const nlmsghdr*>(buf.data());
  CHECK(h->nlmsg_len == buf.size());
  CHECK(h->nlmsg_type == RTM_NEWLINK);
  CHECK(h->nlmsg_seq == 42u);
  CHECK((h->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK)) == (NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK));
  const char* begin = buf.data() + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg));
  const char* end = buf.data() + buf.size();
  std::string name, kind, peer_name;
  uint32_t fd = 0, peer_fd = 0;
  EachAttr(begin, end, [&](int type, const char* d, size_t n) {
    if (type == IFLA_IFNAME) name = d;
    if (type == IFLA_NET_NS_FD) std::memcpy(&fd, d, sizeof fd);
    if (type != IFLA_LINKINFO) return;
    EachAttr(d, d + n, [&](int t, const char* d2, size_t n2) {
      if (t == IFLA_INFO_KIND) kind = std::string(d2, n2 - 1);
      if (t != IFLA_INFO_DATA) return;
      EachAttr(d2, d2 + n2, [&](int t3, const char* d3, size_t n3) {
        REQUIRE(t3 == VETH_INFO_PEER);
        EachAttr(d3 + sizeof(ifinfomsg), d3 + n3, [&](int t4, const char* d4, size_t) {
          if (t4 == IFLA_IFNAME) peer_name = d4;
          if (t4 == IFLA_NET_NS_FD) std::memcpy(&peer_fd, d4, sizeof peer_fd);
        });
      });
    });
  });
  CHECK(name == "relay0");
  CHECK(fd == 7u);
  CHECK(kind == "veth");
  CHECK(peer_name == "eth0");
  CHECK(peer_fd == 9u);
  CHECK_FALSE(CreateVeth({"/nonexistent/a", "x"}, {"/nonexistent/b", "y"}).ok());
  CHECK_FALSE(CreateVeth({"/nonexistent/a", "a-name-far-too-long"}, {"/nonexistent/b", "y"}).ok());
  CHECK_FALSE(SetIPv4("/nonexistent/a", "eth0", "10.0.0.300", 30).ok());
  CHECK_FALSE(SetNetSysctl("/nonexistent/a", "ipv4/ip_forward", "0").ok());
  CHECK(SetNetSysctl("/nonexistent/a", "../../../etc/x", "0").error().err_no == EINVAL);
}

