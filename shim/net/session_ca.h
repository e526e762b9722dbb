// A session's own certificate authority, for the hosts whose TLS the egress proxy opens to
// inject a secret: an EC P-256 key (fast to make and to sign with) and a self-signed
// certificate. The key stays on the host (a 0600 file in the session's private directory,
// then the proxy's memory); the certificate joins the sandbox's trust. LeafMinter signs one
// leaf per host on first use and keeps the TLS context for it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <boost/asio/ssl/context.hpp>

#include "shim/core/result.h"

namespace sandshim::net {

struct CaPem {
  std::string key, cert;
};

// A fresh CA named after the session ("sandshim session ID CA"), valid from an hour ago for ten years.
Result<CaPem> MakeSessionCa(std::string_view session);

class LeafMinter {
 public:
  LeafMinter();
  ~LeafMinter();
  LeafMinter(LeafMinter&&) noexcept;
  LeafMinter& operator=(LeafMinter&&) noexcept;
  static Result<LeafMinter> Load(std::string_view key_pem, std::string_view cert_pem);
  // The server-side context presenting a leaf for host (a DNS name or an IP literal),
  // signed by the CA: SAN = host, serverAuth, 30 days.
  Result<std::shared_ptr<boost::asio::ssl::context>> ContextFor(const std::string& host);

  struct Keys;

 private:
  std::unique_ptr<Keys> keys_;
  std::map<std::string, std::shared_ptr<boost::asio::ssl::context>> cache_;
};

}  // namespace sandshim::net
