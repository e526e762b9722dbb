// The request gate's view (request_gate.h) of a head Beast parsed: both transports build it
// here, so they hand the gate the same thing.
#pragma once

#include <boost/beast/http.hpp>

#include "shim/net/request_gate.h"

namespace sandshim::net {

inline RequestHead HeadOf(const boost::beast::http::request_parser<boost::beast::http::empty_body>& parser) {
  namespace http = boost::beast::http;
  const auto& req = parser.get();
  RequestHead h;
  h.method = std::string(req.method_string());
  h.target = std::string(req.target());
  for (const auto& f : req) h.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
  h.transfer_encoding = req.count(http::field::transfer_encoding) > 0;
  if (auto n = parser.content_length()) h.content_length = *n;
  return h;
}

}  // namespace sandshim::net
