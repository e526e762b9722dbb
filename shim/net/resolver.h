// Name resolution for the egress proxy, behind a seam: the system resolver in production,
// fixed answers in tests (--resolve NAME=IP[,IP...]). The fixed resolver also plays the
// DNS-rebinding attacker: repeating --resolve for a name gives successive lookups
// successive answers (public first, private next), so a test can show that the proxy
// connects to the address it checked and that every new lookup is checked again.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::net {

using Addresses = std::vector<boost::asio::ip::address>;

class Resolver {
 public:
  using Callback = std::function<void(Result<Addresses>)>;
  virtual ~Resolver() = default;
  // Calls cb exactly once, from the io_context's thread.
  virtual void Resolve(const std::string& host, Callback cb) = 0;
};

std::unique_ptr<Resolver> MakeSystemResolver(boost::asio::io_context& io);

class StaticResolver : public Resolver {
 public:
  explicit StaticResolver(std::unique_ptr<Resolver> fallback) : fallback_(std::move(fallback)) {}
  // "name=ip[,ip...]"; a repeated name appends the next answer in its sequence.
  Status Add(const std::string& spec);
  void Resolve(const std::string& host, Callback cb) override;

 private:
  std::map<std::string, std::vector<Addresses>> answers_;
  std::map<std::string, size_t> lookups_;
  std::unique_ptr<Resolver> fallback_;
};

}  // namespace sandshim::net
