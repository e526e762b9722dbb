// A session's secrets as the platform declares them (pure; unit-tested). A secret has a
// name (the environment variable that holds its placeholder inside the sandbox), the hosts
// it is for, and where the egress proxy puts its value: a header template such as
// "Authorization: Bearer {}", or (no template) in place of the placeholder wherever it
// appears in a request header. The value itself is never part of a profile: only where to
// read it from (a file, an inherited fd, the caller's environment), never argv.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::bundle {

struct SecretSpec {
  std::string name;
  std::vector<std::string> hosts;  // domain-rule forms: api.github.com, *.openai.com, host:443
  std::string header;              // "Name: text {} text", "Name" (the one header for the placeholder), or empty
  std::string placeholder;         // made per session by the session layer
  // Scope (docs/SECRETS.md): request-path prefixes, methods, and schemes (empty: https only).
  std::vector<std::string> paths, methods, schemes;
};

enum class SecretSourceKind { kFile, kFd, kEnv };

struct SecretSource {
  std::string name;
  SecretSourceKind kind = SecretSourceKind::kFile;
  std::string where;  // path, fd number or variable name
};

// "NAME:host=api.example.com[,host=*.x.com][,path=/v1/][,method=POST][,scheme=http]
// [:header=Authorization: Bearer {}]" (the header template, or a bare header name, takes the
// rest of the text, colons included; an item without "key=" continues the previous key, so
// "host=a,b" lists two hosts). What the scope means is checked by the proxy's rules
// (net::CheckSecretScope, at session create).
Result<SecretSpec> ParseSecretSpec(std::string_view text);
// "NAME=PATH" / "NAME=FD" / "NAME=VAR" for --secret-file / --secret-fd / --secret-env.
Result<SecretSource> ParseSecretSource(SecretSourceKind kind, std::string_view text);
// A header template: a token name, ": ", exactly one "{}", no control characters; or a bare
// token name (no ':', no "{}").
Status CheckHeaderTemplate(std::string_view header);
// The text before the first ':' of a template ("Authorization").
std::string HeaderName(std::string_view header);
std::string_view SourceFlag(SecretSourceKind kind);

// The placeholder shape: recognisable, random per session, worthless outside.
inline constexpr std::string_view kPlaceholderPrefix = "sshim-secret-";

}  // namespace sandshim::bundle
