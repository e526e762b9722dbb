// Which resolved addresses the egress proxy may connect to (pure; unit-tested).
//
// The check runs on every address a name resolves to, after resolution, and the proxy then
// connects to that checked address (never re-resolving), so a name that points somewhere
// harmless at check time cannot be switched to an internal address (DNS rebinding).
//
// Refused by default: loopback, link-local (169.254/16 with cloud metadata 169.254.169.254,
// fe80::/10), private (10/8, 172.16/12, 192.168/16), shared CGNAT (100.64/10), unique-local
// (fc00::/7), unspecified, "this network" (0/8), multicast, broadcast, reserved (240/4),
// benchmarking (198.18/15, internal test networks use it) and IETF protocol assignments
// (192.0.0/24). IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible and NAT64 (64:ff9b::/96)
// IPv6 addresses are judged by the IPv4 address they carry, so wrapping 127.0.0.1 in IPv6
// gains nothing.
// Allowed: public addresses, and the documentation ranges (192.0.2/24, 198.51.100/24,
// 203.0.113/24, 2001:db8::/32): they are never routed on the internet, so no internal
// service lives there by any standard, and tests use them as "public-looking" hosts.
// --allow-private opens private, CGNAT and unique-local (a corporate mirror on 10.x);
// loopback, link-local/metadata and the rest open only through an explicit --allow-cidr.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::net {

enum class AddrClass {
  kPublic,
  kDocumentation,
  kLoopback,
  kLinkLocal,
  kPrivate,
  kSharedCgnat,
  kUniqueLocal,
  kUnspecified,
  kThisNetwork,
  kMulticast,
  kBroadcast,
  kReserved,
  kBenchmarking,
  kProtocolAssignments,
  // Cloud instance metadata and platform endpoints (credentials live there). Refused even
  // with --allow-private; only --allow-cidr naming them opens them.
  kMetadata,
  // An address of one of this host's own interfaces (its public address too) that would
  // otherwise be open: refused unless --allow-cidr names it. Set by the policy, not by Classify.
  kThisHost,
};

const char* ClassName(AddrClass c);  // "loopback", "link-local", "private", ...
AddrClass Classify(const boost::asio::ip::address& a);
// The IPv4 address an IPv6 address carries (mapped, compatible, NAT64), else a itself.
boost::asio::ip::address Unwrap(const boost::asio::ip::address& a);
// Also the IPv4 forms inet_aton takes and resolvers and URL parsers honour (2130706433,
// 0x7f.1, 127.1, 0177.0.0.1): they are addresses, never names to look up or pass upstream.
Result<boost::asio::ip::address> ParseAddress(std::string_view text);
// The addresses of this host's interfaces, best effort (empty if getifaddrs fails).
std::vector<boost::asio::ip::address> HostAddresses();

struct Cidr {
  boost::asio::ip::address base;
  int prefix = 0;
  std::string text;
  bool Contains(const boost::asio::ip::address& a) const;
};
// "10.0.0.0/8", "fd00::/8", or a bare address (a /32 or /128).
Result<Cidr> ParseCidr(std::string_view text);

struct AddressDecision {
  bool allowed = false;
  AddrClass cls = AddrClass::kPublic;
  std::string rule;    // "default", "allow-private", the --allow-cidr text, or the class name refused
  std::string reason;  // "10.0.0.5 is a private address"
};

struct AddressPolicy {
  bool allow_private = false;
  std::vector<Cidr> allow;
  std::vector<boost::asio::ip::address> host_addresses;  // this host's interfaces (getifaddrs)
  AddressDecision Check(const boost::asio::ip::address& a) const;
};

}  // namespace sandshim::net
