#include "shim/net/context_egress.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/beast/core/detail/base64.hpp>
#include <boost/json.hpp>

#include "shim/core/log.h"

namespace sandshim::net {
namespace json = boost::json;
namespace {

Result<std::vector<std::string>> StringsAt(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (!v) return out;
  if (!v->is_array()) return MakeError(std::string(key) + ": not a list", EINVAL);
  for (const auto& s : v->get_array()) {
    if (!s.is_string()) return MakeError(std::string(key) + ": not a list of strings", EINVAL);
    out.emplace_back(s.get_string());
  }
  return out;
}

// Compares without an early exit: the time taken says nothing about where a guess differs.
bool SameSecret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() != b.size();
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

std::string ContextProxyUser(std::string_view name) { return "ctx-" + std::string(name); }

Result<ContextEgressTable> ParseContextEgress(std::string_view text) {
  ContextEgressTable t;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return t;
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec || !v.is_object()) return MakeError("contexts file: not a JSON object", EINVAL);
  const auto* list = v.as_object().if_contains("contexts");
  if (!list || !list->is_array()) return MakeError("contexts file: no \"contexts\" list", EINVAL);
  for (const auto& c : list->get_array()) {
    const auto* o = c.if_object();
    const auto* name = o ? o->if_contains("name") : nullptr;
    const auto* token = o ? o->if_contains("token") : nullptr;
    const auto* path = o ? o->if_contains("path") : nullptr;
    bool has_token = token && token->is_string() && token->get_string().size() >= 16;
    bool has_path = path && path->is_string() && path->get_string().size() >= 16;
    if (!name || !name->is_string() || (!has_token && !has_path) || (token && !has_token) || (path && !has_path))
      return MakeError("contexts file: an entry without name, or with neither token nor path", EINVAL);
    std::string n(name->get_string());
    auto allow = TRY_CTX(StringsAt(*o, "allow_domains"), "contexts file: " + n);
    auto deny = TRY_CTX(StringsAt(*o, "deny_domains"), "contexts file: " + n);
    ContextEgressEntry e{has_token ? std::string(token->get_string()) : "", has_path ? std::string(path->get_string()) : "",
                         std::nullopt};
    if (!allow.empty() || !deny.empty()) e.rules = TRY_CTX(DomainRules::Make(allow, deny), "contexts file: " + n);
    t.emplace(std::move(n), std::move(e));
  }
  return t;
}

std::optional<std::pair<std::string, std::string>> ParseProxyBasic(std::string_view header) {
  constexpr std::string_view kBasic = "Basic ";
  if (header.size() <= kBasic.size() || header.substr(0, kBasic.size()) != kBasic) return std::nullopt;
  auto b64 = header.substr(kBasic.size());
  // Beast's decoder stops at the padding: what comes before it must be all there was.
  auto unpadded = b64.substr(0, b64.find_last_not_of('=') + 1);
  if (b64.size() - unpadded.size() > 2) return std::nullopt;
  std::string raw(boost::beast::detail::base64::decoded_size(b64.size()), '\0');
  auto [written, read] = boost::beast::detail::base64::decode(raw.data(), b64.data(), b64.size());
  if (read != unpadded.size()) return std::nullopt;
  raw.resize(written);
  auto colon = raw.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return std::make_pair(raw.substr(0, colon), raw.substr(colon + 1));
}

Result<std::shared_ptr<ContextEgress>> ContextEgress::Open(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return ErrnoError("contexts file " + path);
  auto c = std::shared_ptr<ContextEgress>(new ContextEgress(std::move(fd)));
  c->Reload();
  return c;
}

void ContextEgress::Reload() {
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) return;
  if (st.st_size == size_ && st.st_mtim.tv_sec == mtime_.tv_sec && st.st_mtim.tv_nsec == mtime_.tv_nsec) return;
  std::string text(static_cast<size_t>(st.st_size), '\0');
  auto n = ::pread(fd_.get(), text.data(), text.size(), 0);
  if (n != static_cast<ssize_t>(text.size())) return;
  // Written in place by the session layer: a read in the middle of a write does not parse;
  // the last table that did stays until the next request looks again.
  auto t = ParseContextEgress(text);
  if (!t) {
    log::Debug("proxy: " + t.error().msg + "; keeping the previous contexts");
    return;
  }
  table_ = std::move(*t);
  size_ = st.st_size;
  mtime_ = st.st_mtim;
}

Result<EgressIdentity> ContextEgress::Identify(std::string_view proxy_authorization) {
  if (proxy_authorization.empty()) return EgressIdentity{"default", nullptr};
  Reload();
  auto creds = ParseProxyBasic(proxy_authorization);
  constexpr std::string_view kPrefix = "ctx-";
  if (!creds || creds->first.substr(0, kPrefix.size()) != kPrefix)
    return MakeError("proxy credentials name no context of this session", EACCES);
  auto it = table_.find(std::string_view(creds->first).substr(kPrefix.size()));
  if (it == table_.end() || it->second.token.empty() || !SameSecret(it->second.token, creds->second))
    return MakeError("proxy credentials name no context of this session", EACCES);
  return EgressIdentity{it->first, it->second.rules ? &*it->second.rules : nullptr};
}

std::optional<std::string> ContextEgress::ContextOfPath(std::string_view key) {
  Reload();
  for (const auto& [name, e] : table_)
    if (!e.path.empty() && SameSecret(e.path, key)) return name;
  return std::nullopt;
}

}  // namespace sandshim::net
