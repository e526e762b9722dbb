#include "shim/session/egress/context_egress_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <map>

#include "shim/core/fs.h"
#include "shim/core/unique_fd.h"
#include "shim/net/context_egress.h"

namespace sandshim::session {
namespace json = boost::json;
namespace {

Result<json::array> ReadEntries(const std::filesystem::path& file) {
  auto text = fs::ReadFile(file);
  if (!text || text->find_first_not_of(" \t\r\n") == std::string::npos) return json::array{};
  boost::system::error_code ec;
  auto v = json::parse(*text, ec);
  if (ec || !v.is_object() || !v.as_object().contains("contexts") || !v.as_object()["contexts"].is_array())
    return MakeError(file.string() + ": not a contexts file", EINVAL);
  return v.as_object()["contexts"].as_array();
}

// Not fsync'd: the relay that reads it dies with the kernel (context create's budget: contexts.cc).
Status WriteInPlace(const std::filesystem::path& file, const json::array& entries) {
  auto text = json::serialize(json::object{{"contexts", entries}});
  UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return ErrnoError("open " + file.string());
  if (::pwrite(fd.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) ||
      ::ftruncate(fd.get(), static_cast<off_t>(text.size())) != 0)
    return ErrnoError("write " + file.string());
  return Ok();
}

json::array Strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

}  // namespace

Result<std::string> NewContextToken() {
  unsigned char raw[32];
  if (::getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) return ErrnoError("getrandom");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) out += {kHex[c >> 4], kHex[c & 15]};
  return out;
}

Status AddContextEgress(const std::filesystem::path& file, const std::string& name, const std::string& token,
                        const std::vector<std::string>& allow, const std::vector<std::string>& deny,
                        const std::string& path) {
  auto entries = TRY(ReadEntries(file));
  json::array kept;
  for (auto& e : entries)
    if (!e.is_object() || e.as_object()["name"] != name.c_str()) kept.push_back(e);
  json::object entry{{"name", name}, {"allow_domains", Strings(allow)}, {"deny_domains", Strings(deny)}};
  if (!token.empty()) entry["token"] = token;
  if (!path.empty()) entry["path"] = path;
  kept.push_back(std::move(entry));
  TRY(net::ParseContextEgress(json::serialize(json::object{{"contexts", kept}})));  // what the relay will read
  return WriteInPlace(file, kept);
}

Status RemoveContextEgress(const std::filesystem::path& file, const std::string& name) {
  if (!fs::Exists(file)) return Ok();
  auto entries = TRY(ReadEntries(file));
  json::array kept;
  for (auto& e : entries)
    if (!e.is_object() || e.as_object()["name"] != name.c_str()) kept.push_back(e);
  if (kept.size() == entries.size()) return Ok();
  return WriteInPlace(file, kept);
}

std::map<std::string, std::string> ContextProxyEnv(const std::string& name, const std::string& token,
                                                   const std::string& host, uint16_t port) {
  std::string user = name.empty() ? "" : net::ContextProxyUser(name) + ":" + token + "@";
  auto url = "http://" + user + host + ":" + std::to_string(port);
  return {{"HTTP_PROXY", url}, {"HTTPS_PROXY", url}, {"http_proxy", url}, {"https_proxy", url}};
}

}  // namespace sandshim::session
