#include "bundle/secret_spec.h"

#include <charconv>

#include "bundle/session_spec.h"

namespace sandshim::bundle {

static bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos)
      return false;
  return true;
}

static Status CheckName(std::string_view name, std::string_view what) {
  // The name becomes an environment variable inside: the same rule as --env keys.
  if (!ParseEnv(std::string(name) + "=x"))
    return MakeError(std::string(what) + ": \"" + std::string(name) + "\" is not a valid environment variable name", EINVAL);
  return Ok();
}

std::string HeaderName(std::string_view header) { return std::string(header.substr(0, header.find(':'))); }

Status CheckHeaderTemplate(std::string_view header) {
  auto colon = header.find(':');
  if (colon == std::string_view::npos && IsToken(header)) return Ok();  // a bare header name
  if (colon == std::string_view::npos || !IsToken(header.substr(0, colon)))
    return MakeError("header template \"" + std::string(header) + "\": want \"Name: text {}\"", EINVAL);
  for (char c : header)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return MakeError("header template: control characters are not allowed", EINVAL);
  auto first = header.find("{}");
  if (first == std::string_view::npos || first < colon || header.find("{}", first + 2) != std::string_view::npos)
    return MakeError("header template \"" + std::string(header) + "\": its value needs exactly one {}", EINVAL);
  return Ok();
}

Result<SecretSpec> ParseSecretSpec(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return MakeError("--secret \"" + std::string(text.substr(0, text.find(':'))) + ":...\": " + why +
                         " (want NAME:host=HOST[,path=/PREFIX][,method=M][,scheme=http][:header=Name: text {}])",
                     EINVAL);
  };
  SecretSpec s;
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return bad("no hosts");
  s.name = std::string(text.substr(0, colon));
  TRY(CheckName(s.name, "--secret"));
  std::string_view rest = text.substr(colon + 1);
  std::string_view items = rest;
  if (auto h = rest.find(":header="); h != std::string_view::npos) {
    items = rest.substr(0, h);
    s.header = std::string(rest.substr(h + 8));
    if (auto st = CheckHeaderTemplate(s.header); !st) return bad(st.error().msg);
  }
  if (!items.starts_with("host=")) return bad("no hosts");
  std::vector<std::string>* into = &s.hosts;
  size_t start = 0;
  while (start <= items.size()) {
    size_t end = std::min(items.find(',', start), items.size());
    auto item = items.substr(start, end - start);
    for (auto [key, list] : {std::pair{"host=", &s.hosts}, {"path=", &s.paths}, {"method=", &s.methods},
                             {"scheme=", &s.schemes}})
      if (item.starts_with(key)) {
        item.remove_prefix(std::string_view(key).size());
        into = list;
      }
    if (item.empty()) return bad("an empty item");
    into->emplace_back(item);
    start = end + 1;
  }
  return s;
}

Result<SecretSource> ParseSecretSource(SecretSourceKind kind, std::string_view text) {
  auto eq = text.find('=');
  std::string flag(SourceFlag(kind));
  if (eq == std::string_view::npos || eq + 1 == text.size())
    return MakeError(flag + " \"" + std::string(text.substr(0, eq)) + "\": want NAME=" +
                         (kind == SecretSourceKind::kFile ? "PATH" : kind == SecretSourceKind::kFd ? "FD" : "VAR"),
                     EINVAL);
  SecretSource s{std::string(text.substr(0, eq)), kind, std::string(text.substr(eq + 1))};
  TRY(CheckName(s.name, flag));
  if (kind == SecretSourceKind::kFd) {
    int fd = -1;
    auto [p, ec] = std::from_chars(s.where.data(), s.where.data() + s.where.size(), fd);
    if (ec != std::errc() || p != s.where.data() + s.where.size() || fd < 0)
      return MakeError(flag + " " + s.name + ": \"" + s.where + "\" is not a file descriptor number", EINVAL);
  }
  if (kind == SecretSourceKind::kEnv) TRY(CheckName(s.where, flag));
  return s;
}

std::string_view SourceFlag(SecretSourceKind kind) {
  switch (kind) {
    case SecretSourceKind::kFile: return "--secret-file";
    case SecretSourceKind::kFd: return "--secret-fd";
    case SecretSourceKind::kEnv: return "--secret-env";
  }
  return "?";
}

}  // namespace sandshim::bundle
