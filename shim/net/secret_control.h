// How secret values reach a running proxy: a unix socket in the session's private directory
// (made by the proxy while still root, mode 0600), one request per connection, the peer
// checked with SO_PEERCRED (root only). Values never travel through argv, the environment
// or a file. Used at create (every value, before the sandbox starts), by `session secret
// set|rm` (rotation: the next request uses the new value) and after `session start`.
//
//   request:  "set\nNAME\nVALUE"  or  "rm\nNAME"      (the client then shuts its side)
//             NAME is CONTEXT/NAME for a context's secret;
//             "declare\n[rules JSON]" (context-owned secrets only), "forget\nCONTEXT"
//   answer:   "ok\n"  or  "error: MESSAGE\n"
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

#include <boost/asio/io_context.hpp>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"
#include "shim/net/secret_book.h"

namespace sandshim::net {

// Binds and listens at path (an old socket there is replaced), 0600.
Result<UniqueFd> ListenSecretControl(const std::filesystem::path& path);
// Serves requests on listener, applying them to book, until io stops.
void ServeSecretControl(boost::asio::io_context& io, UniqueFd listener, SecretBook& book);

// The client side (blocking, 5 s at most).
Status SendSecret(const std::filesystem::path& socket, std::string_view name, std::string_view value);
Status RemoveSecret(const std::filesystem::path& socket, std::string_view name);
// A context's secrets (each with .context set) into a running relay; all of a context's out.
Status DeclareSecrets(const std::filesystem::path& socket, const std::vector<SecretRuleSpec>& specs);
Status ForgetSecrets(const std::filesystem::path& socket, std::string_view context);

// Parses and applies one request (pure apart from book); the answer's text.
std::string HandleSecretRequest(std::string_view request, SecretBook& book);

}  // namespace sandshim::net
