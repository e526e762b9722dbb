#include "shim/session/contexts/context_home.h"

#include <fcntl.h>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/core/fs.h"
#include "shim/core/unique_fd.h"
#include "shim/session/contexts/trusted_context.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;

std::filesystem::path HomeDir(const std::filesystem::path& container_dir) { return container_dir / layout::kContextHome; }

Result<std::filesystem::path> MakeHomeDir(const std::filesystem::path& container_dir, native::Sys& sys) {
  auto home = HomeDir(container_dir);
  if (sys.Mkdirat(AT_FDCWD, home.c_str(), 0700) != 0 && errno != EEXIST) return ErrnoError("mkdir " + home.string());
  return home;
}

Status PlaceIdentity(const std::filesystem::path& session_dir, const std::filesystem::path& container_dir,
                     ContextPlacement& at) {
  at.home_path = HomeDir(container_dir).string();
  at.trusted_path = TRY(InstallTrustedTools(session_dir)).string();
  return Ok();
}

Status OpenToSessionIds(const std::filesystem::path& container_dir, const json::object& spec, native::Sys& sys) {
  uint32_t group = HostId(spec, "gidMappings", 0);
  if (group == 0) return Ok();
  for (const auto& d : {container_dir.parent_path(), container_dir})
    if (sys.Fchownat(AT_FDCWD, d.c_str(), 0, group, 0) != 0 || sys.Fchmodat(AT_FDCWD, d.c_str(), 0710, 0) != 0) return ErrnoError("open " + d.string() + " to the session's ids");
  return Ok();
}

uint32_t HostId(const json::object& spec, const char* mappings, uint32_t id) {
  const auto* l = spec.if_contains("linux");
  const auto* m = l && l->is_object() ? l->as_object().if_contains(mappings) : nullptr;
  if (!m || !m->is_array()) return id;
  for (const auto& e : m->as_array()) {
    const auto* o = e.if_object();
    if (!o) continue;
    boost::system::error_code ec;
    auto inside = o->if_contains("containerID") ? o->at("containerID").to_number<uint32_t>(ec) : 0;
    auto host = o->if_contains("hostID") ? o->at("hostID").to_number<uint32_t>(ec) : 0;
    auto size = o->if_contains("size") ? o->at("size").to_number<uint32_t>(ec) : 0;
    if (!ec && id >= inside && id - inside < size) return host + (id - inside);
  }
  return id;
}

Status OwnHome(const std::filesystem::path& container_dir, const json::object& spec, uint32_t uid, uint32_t gid,
               native::Sys& sys) {
  auto home = HomeDir(container_dir);
  // Below the session's root-only directory; O_NOFOLLOW all the same (a home is never a link).
  UniqueFd fd(::open(home.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + home.string());
  if (sys.Fchownat(fd.get(), "", HostId(spec, "uidMappings", uid), HostId(spec, "gidMappings", gid), AT_EMPTY_PATH) != 0)
    return ErrnoError("chown " + home.string());
  if (::fchmod(fd.get(), 0700) != 0) return ErrnoError("chmod " + home.string());
  return Ok();
}

}  // namespace sandshim::session
