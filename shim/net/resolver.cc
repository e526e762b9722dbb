#include "shim/net/resolver.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include "shim/net/address_policy.h"
#include "shim/net/domain_rules.h"

namespace sandshim::net {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

class SystemResolver : public Resolver {
 public:
  explicit SystemResolver(asio::io_context& io) : io_(io) {}
  void Resolve(const std::string& host, Callback cb) override {
    // getaddrinfo blocks; Asio runs it on its private resolver thread and posts the answer
    // back to the io_context, so one slow lookup does not stall the other connections.
    auto r = std::make_shared<tcp::resolver>(io_);
    r->async_resolve(host, "", [r, host, cb](const boost::system::error_code& ec, tcp::resolver::results_type res) {
      if (ec) return cb(MakeError("cannot resolve " + host + ": " + ec.message(), EHOSTUNREACH));
      Addresses out;
      for (const auto& e : res) {
        auto a = e.endpoint().address();
        if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
      }
      if (out.empty()) return cb(MakeError("cannot resolve " + host + ": no addresses", EHOSTUNREACH));
      cb(std::move(out));
    });
  }

 private:
  asio::io_context& io_;
};

}  // namespace

std::unique_ptr<Resolver> MakeSystemResolver(asio::io_context& io) { return std::make_unique<SystemResolver>(io); }

Status StaticResolver::Add(const std::string& spec) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    return MakeError("--resolve '" + spec + "': expected NAME=IP[,IP...]", EINVAL);
  Addresses list;
  std::string ips = spec.substr(eq + 1);
  size_t pos = 0;
  while (pos <= ips.size()) {
    auto comma = ips.find(',', pos);
    if (comma == std::string::npos) comma = ips.size();
    list.push_back(TRY_CTX(ParseAddress(ips.substr(pos, comma - pos)), "--resolve '" + spec + "'"));
    pos = comma + 1;
  }
  answers_[NormalizeHost(spec.substr(0, eq))].push_back(std::move(list));
  return Ok();
}

void StaticResolver::Resolve(const std::string& host, Callback cb) {
  auto it = answers_.find(NormalizeHost(host));
  if (it == answers_.end()) {
    if (fallback_) return fallback_->Resolve(host, std::move(cb));
    return cb(MakeError("cannot resolve " + host + ": not in the fixed answers", EHOSTUNREACH));
  }
  size_t n = lookups_[it->first]++;
  cb(it->second[std::min(n, it->second.size() - 1)]);
}

}  // namespace sandshim::net
