// The session's side of credential contexts' egress identities: the contexts file its relay
// reads (net/context_egress.h), edited under the session's lock. Written in place, never
// renamed over: the relay holds the file open from before its privilege drop and cannot open
// it again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::session {

// A random token for a context's proxy credentials (hex, 256 bits from getrandom).
Result<std::string> NewContextToken();
// A context's entry (context_egress.h): its token (empty: none, the default context), rules
// and path key (empty: none).
Status AddContextEgress(const std::filesystem::path& file, const std::string& name, const std::string& token,
                        const std::vector<std::string>& allow, const std::vector<std::string>& deny,
                        const std::string& path = "");
// Idempotent: a name that is not there is not an error.
Status RemoveContextEgress(const std::filesystem::path& file, const std::string& name);
// HTTP(S)_PROXY and lowercase forms naming the context at the relay on 127.0.0.1:port.
// name empty: no credentials (the context sends none and gets the session's rules).
std::map<std::string, std::string> ContextProxyEnv(const std::string& name, const std::string& token,
                                                   const std::string& host, uint16_t port);

}  // namespace sandshim::session
