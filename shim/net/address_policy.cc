#include "shim/net/address_policy.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>

namespace sandshim::net {

namespace ip = boost::asio::ip;

const char* ClassName(AddrClass c) {
  switch (c) {
    case AddrClass::kPublic: return "public";
    case AddrClass::kDocumentation: return "documentation";
    case AddrClass::kLoopback: return "loopback";
    case AddrClass::kLinkLocal: return "link-local";
    case AddrClass::kPrivate: return "private";
    case AddrClass::kSharedCgnat: return "shared (CGNAT)";
    case AddrClass::kUniqueLocal: return "unique-local";
    case AddrClass::kUnspecified: return "unspecified";
    case AddrClass::kThisNetwork: return "this-network";
    case AddrClass::kMulticast: return "multicast";
    case AddrClass::kBroadcast: return "broadcast";
    case AddrClass::kReserved: return "reserved";
    case AddrClass::kBenchmarking: return "benchmarking";
    case AddrClass::kProtocolAssignments: return "IETF protocol assignment";
    case AddrClass::kMetadata: return "cloud metadata";
    case AddrClass::kThisHost: return "local interface";
  }
  return "unknown";
}

static bool In4(uint32_t a, uint32_t net, int prefix) {
  uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
  return (a & mask) == (net & mask);
}

static constexpr uint32_t V4(unsigned a, unsigned b, unsigned c, unsigned d) { return a << 24 | b << 16 | c << 8 | d; }

ip::address Unwrap(const ip::address& a) {
  if (!a.is_v6()) return a;
  auto b = a.to_v6().to_bytes();
  bool zero80 = std::all_of(b.begin(), b.begin() + 10, [](unsigned char x) { return x == 0; });
  auto tail = [&] { return ip::address_v4(ip::address_v4::bytes_type{b[12], b[13], b[14], b[15]}); };
  if (zero80 && b[10] == 0xff && b[11] == 0xff) return tail();  // ::ffff:a.b.c.d
  // ::a.b.c.d (deprecated IPv4-compatible), except :: and ::1 themselves.
  if (zero80 && b[10] == 0 && b[11] == 0 && (b[12] | b[13]) != 0) return tail();
  // NAT64 well-known prefix 64:ff9b::/96.
  static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::equal(b.begin(), b.begin() + 12, nat64)) return tail();
  return a;
}

// Instance metadata and platform endpoints: AWS (IMDS, ECS task, DNS, NTP), GCP/Azure/
// OpenStack/DigitalOcean (169.254.169.254), Azure WireServer (public space), Alibaba (CGNAT
// space), Oracle (192.0.0.192), AWS IPv6 IMDS/DNS/NTP (unique-local space).
static bool IsMetadata(const ip::address& a) {
  static const char* const kList[] = {"169.254.169.254", "169.254.170.2", "169.254.169.253", "169.254.169.123",
                                      "168.63.129.16",  "100.100.100.200", "192.0.0.192",   "fd00:ec2::254",
                                      "fd00:ec2::253",  "fd00:ec2::23",    "fd00:ec2::123"};
  for (const char* m : kList)
    if (a == ip::make_address(m)) return true;
  return false;
}

AddrClass Classify(const ip::address& in) {
  ip::address a = Unwrap(in);
  if (IsMetadata(a)) return AddrClass::kMetadata;
  if (a.is_v4()) {
    uint32_t v = a.to_v4().to_uint();
    if (v == 0) return AddrClass::kUnspecified;
    if (In4(v, V4(0, 0, 0, 0), 8)) return AddrClass::kThisNetwork;
    if (In4(v, V4(127, 0, 0, 0), 8)) return AddrClass::kLoopback;
    if (In4(v, V4(169, 254, 0, 0), 16)) return AddrClass::kLinkLocal;
    if (In4(v, V4(10, 0, 0, 0), 8) || In4(v, V4(172, 16, 0, 0), 12) || In4(v, V4(192, 168, 0, 0), 16))
      return AddrClass::kPrivate;
    if (In4(v, V4(100, 64, 0, 0), 10)) return AddrClass::kSharedCgnat;
    if (In4(v, V4(192, 0, 0, 0), 24)) return AddrClass::kProtocolAssignments;
    if (In4(v, V4(198, 18, 0, 0), 15)) return AddrClass::kBenchmarking;
    if (In4(v, V4(192, 0, 2, 0), 24) || In4(v, V4(198, 51, 100, 0), 24) || In4(v, V4(203, 0, 113, 0), 24))
      return AddrClass::kDocumentation;
    if (v == 0xffffffff) return AddrClass::kBroadcast;
    if (In4(v, V4(224, 0, 0, 0), 4)) return AddrClass::kMulticast;
    if (In4(v, V4(240, 0, 0, 0), 4)) return AddrClass::kReserved;
    return AddrClass::kPublic;
  }
  auto v6 = a.to_v6();
  auto b = v6.to_bytes();
  if (v6.is_unspecified()) return AddrClass::kUnspecified;
  if (v6.is_loopback()) return AddrClass::kLoopback;
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return AddrClass::kLinkLocal;  // fe80::/10
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return AddrClass::kUniqueLocal;  // fec0::/10 site-local, deprecated
  if ((b[0] & 0xfe) == 0xfc) return AddrClass::kUniqueLocal;                  // fc00::/7
  if (b[0] == 0xff) return AddrClass::kMulticast;
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) return AddrClass::kDocumentation;
  if (b[0] == 0x01 && b[1] == 0 && b[2] == 0 && b[3] == 0 && b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] == 0)
    return AddrClass::kReserved;  // 100::/64 discard-only
  return AddrClass::kPublic;
}

Result<ip::address> ParseAddress(std::string_view text) {
  boost::system::error_code ec;
  std::string t(text);
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
  auto a = ip::make_address(t, ec);
  if (!ec) return a;
  // inet_aton's forms; only digits, dots and hex so that no name with letters qualifies
  // beyond "0x" prefixes (inet_aton also takes trailing text after a space).
  in_addr v4{};
  bool numeric = !t.empty() && t.find_first_not_of("0123456789abcdefABCDEFxX.") == std::string::npos &&
                 std::isdigit(static_cast<unsigned char>(t.front()));
  if (numeric && ::inet_aton(t.c_str(), &v4) == 1) return ip::address(ip::address_v4(ntohl(v4.s_addr)));
  return MakeError("'" + std::string(text) + "' is not an IP address", EINVAL);
}

std::vector<ip::address> HostAddresses() {
  std::vector<ip::address> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (auto* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr) continue;
    if (i->ifa_addr->sa_family == AF_INET) {
      auto* s = reinterpret_cast<sockaddr_in*>(i->ifa_addr);
      out.emplace_back(ip::address_v4(ntohl(s->sin_addr.s_addr)));
    } else if (i->ifa_addr->sa_family == AF_INET6) {
      auto* s = reinterpret_cast<sockaddr_in6*>(i->ifa_addr);
      ip::address_v6::bytes_type b;
      std::copy(std::begin(s->sin6_addr.s6_addr), std::end(s->sin6_addr.s6_addr), b.begin());
      out.emplace_back(ip::address_v6(b));
    }
  }
  ::freeifaddrs(list);
  return out;
}

Result<Cidr> ParseCidr(std::string_view text) {
  Cidr c;
  c.text = std::string(text);
  auto slash = text.find('/');
  c.base = TRY(ParseAddress(text.substr(0, slash)));
  int max = c.base.is_v4() ? 32 : 128;
  c.prefix = max;
  if (slash != std::string_view::npos) {
    auto p = text.substr(slash + 1);
    auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), c.prefix);
    if (ec != std::errc() || ptr != p.data() + p.size() || p.empty() || c.prefix < 0 || c.prefix > max)
      return MakeError("CIDR '" + c.text + "': bad prefix length", EINVAL);
  }
  return c;
}

bool Cidr::Contains(const ip::address& in) const {
  // An IPv4 CIDR also covers the IPv6 forms that carry an address inside it.
  ip::address a = base.is_v4() ? Unwrap(in) : in;
  if (a.is_v4() != base.is_v4()) return false;
  if (a.is_v4()) return In4(a.to_v4().to_uint(), base.to_v4().to_uint(), prefix);
  auto x = a.to_v6().to_bytes(), y = base.to_v6().to_bytes();
  int bits = prefix;
  for (size_t i = 0; i < 16 && bits > 0; ++i, bits -= 8) {
    unsigned mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((x[i] & mask) != (y[i] & mask)) return false;
  }
  return true;
}

AddressDecision AddressPolicy::Check(const ip::address& a) const {
  AddressDecision d;
  d.cls = Classify(a);
  for (const auto& c : allow)
    if (c.Contains(a)) {
      d.allowed = true;
      d.rule = c.text;
      d.reason = a.to_string() + " is allowed by --allow-cidr " + c.text;
      return d;
    }
  // The host's own addresses (its public one included) reach services that listen on the
  // host for its local network: not the open internet the default allows.
  // (Loopback and link-local keep their own, already refused, class.)
  bool open_class = d.cls == AddrClass::kPublic || d.cls == AddrClass::kDocumentation ||
                    d.cls == AddrClass::kPrivate || d.cls == AddrClass::kSharedCgnat || d.cls == AddrClass::kUniqueLocal;
  if (open_class && (std::find(host_addresses.begin(), host_addresses.end(), Unwrap(a)) != host_addresses.end() ||
                     std::find(host_addresses.begin(), host_addresses.end(), a) != host_addresses.end()))
    d.cls = AddrClass::kThisHost;
  if (d.cls == AddrClass::kPublic || d.cls == AddrClass::kDocumentation) {
    d.allowed = true;
    d.rule = "default";
    d.reason = a.to_string() + " is a " + ClassName(d.cls) + " address";
    return d;
  }
  if (allow_private && (d.cls == AddrClass::kPrivate || d.cls == AddrClass::kSharedCgnat ||
                        d.cls == AddrClass::kUniqueLocal)) {
    d.allowed = true;
    d.rule = "allow-private";
    d.reason = a.to_string() + " is a " + ClassName(d.cls) + " address, allowed by --allow-private";
    return d;
  }
  d.rule = ClassName(d.cls);
  d.reason = a.to_string() + " is a " + ClassName(d.cls) + " address";
  return d;
}

}  // namespace sandshim::net
