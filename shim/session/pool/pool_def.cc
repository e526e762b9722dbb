#include "shim/session/pool/pool_def.h"

#include <openssl/sha.h>

#include <cstdio>

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/session/workspace/bind_sources.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;

static std::string Sha256Hex(std::string_view s) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), md);
  std::string hex;
  char b[3];
  for (auto c : md) {
    std::snprintf(b, sizeof b, "%02x", c);
    hex += b;
  }
  return hex;
}

static Result<uint32_t> Count(const json::object& o, const char* key, uint32_t dflt) {
  auto it = o.find(key);
  if (it == o.end()) return dflt;
  if (!it->value().is_int64() || it->value().as_int64() < 0 || it->value().as_int64() > 1000)
    return MakeError(std::string("pool file: ") + key + ": must be a number from 0 to 1000", EINVAL);
  return static_cast<uint32_t>(it->value().as_int64());
}

Result<PoolDef> ParsePoolDef(const std::string& name, std::string_view text,
                             const std::filesystem::path& default_workspace_parent) {
  auto v = TRY(bundle::ParseJson(text, "pool file"));
  if (!v.is_object()) return MakeError("pool file: not a JSON object", EINVAL);
  const auto& o = v.as_object();
  for (const auto& kv : o)
    if (kv.key() != "size" && kv.key() != "low_water" && kv.key() != "workspace_parent" && kv.key() != "profile" &&
        kv.key() != "from_snapshot")
      return MakeError("pool file: unknown key \"" + std::string(kv.key()) + "\"", EINVAL);
  PoolDef d;
  d.name = name;
  d.size = TRY(Count(o, "size", 0));
  if (d.size == 0) return MakeError("pool file: size: must be at least 1", EINVAL);
  d.low_water = TRY(Count(o, "low_water", d.size));
  if (d.low_water > d.size) return MakeError("pool file: low_water: must not exceed size", EINVAL);
  d.workspace_parent = default_workspace_parent;
  if (auto it = o.find("workspace_parent"); it != o.end()) {
    if (!it->value().is_string() || it->value().as_string().empty() || it->value().as_string()[0] != '/')
      return MakeError("pool file: workspace_parent: must be an absolute path", EINVAL);
    d.workspace_parent = std::string(it->value().as_string());
  }
  auto it = o.find("profile");
  if (it == o.end() || !it->value().is_object()) return MakeError("pool file: profile: must be an object", EINVAL);
  d.profile = it->value().as_object();
  if (d.profile.contains("workspace"))
    return MakeError("pool file: profile: workspace: the pool makes each member's own", EINVAL);
  if (auto sn = o.find("from_snapshot"); sn != o.end()) {
    if (!sn->value().is_string()) return MakeError("pool file: from_snapshot: must be a snapshot name", EINVAL);
    d.from_snapshot = sn->value().as_string().c_str();
    TRY_CTX(ValidateId(d.from_snapshot), "pool file: from_snapshot");
  }
  d.generation = Sha256Hex(json::serialize(v));
  return d;
}

std::string PoolUsingSnapshot(const std::filesystem::path& root, const std::string& snapshot) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(RootLayout(root).pools(), ec)) {
    auto name = e.path().filename().string();
    auto text = fs::ReadFile(PoolPaths(root, name).def);
    if (!text) continue;
    auto d = ParsePoolDef(name, *text, {});
    if (d && d->from_snapshot == snapshot) return name;
  }
  return "";
}

std::filesystem::path MemberWorkspace(const PoolDef& d, const std::string& member) {
  return d.workspace_parent / (".member-" + member);
}

Status CheckWorkspaceParent(const std::filesystem::path& parent) {
  // Resolved once, here: the path the pool file names is the one used (no link on the way,
  // which a fill's mkdir would follow), and never "/" or a host system directory (N7).
  std::error_code ec;
  auto written = parent.lexically_normal();
  if (!written.has_filename()) written = written.parent_path();
  auto real = std::filesystem::weakly_canonical(written, ec);
  if (ec) return MakeError("pool file: workspace_parent " + parent.string() + ": " + ec.message(), ec.value());
  if (auto why = RefusedSource(written, real); !why.empty())
    return MakeError("pool file: workspace_parent " + parent.string() + " " + why, EPERM);
  if (real != written)
    return MakeError("pool file: workspace_parent " + parent.string() + " has a symlink on the way (name " +
                         real.string() + ")", EPERM);
  return Ok();
}

}  // namespace sandshim::session
