// A named context's own HOME (docs/CONTEXTS.md, "Threat model"): a host directory per context
// container (<container dir>/home, so a spare's moves with it to the context that claims
// it), bound read-write at kContextHome in that container only, owned by the context's user
// (mode 0700). Its dotfiles (.gitconfig, .curlrc, .netrc, .ssh, .npmrc, pip's config) are then
// the context's own, not files of the shared workspace that another context writes. It lives
// as long as the context (the directory goes with it).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <filesystem>

#include "shim/core/result.h"
#include "shim/linux/sys.h"
#include "shim/session/contexts/context_spec.h"

namespace sandshim::session {

inline constexpr const char* kContextHome = "/home/context";

std::filesystem::path HomeDir(const std::filesystem::path& container_dir);
// Makes <container dir>/home (root's, 0700: nobody's until a context owns it). Idempotent.
Result<std::filesystem::path> MakeHomeDir(const std::filesystem::path& container_dir, native::Sys& sys = native::LinuxSys());
// Gives the home to the context's user: uid/gid as seen inside, mapped through the spec's
// uidMappings/gidMappings (native) to the host's ids. Opened without following a link.
Status OwnHome(const std::filesystem::path& container_dir, const boost::json::object& spec, uint32_t uid, uint32_t gid,
               native::Sys& sys = native::LinuxSys());
// Where a context container's home and the trusted tools come from (into at): the
// container's home directory (made later, with the container's directory) and the session's
// trusted tools (installed once).
Status PlaceIdentity(const std::filesystem::path& session_dir, const std::filesystem::path& container_dir,
                     ContextPlacement& at);
// Native: the container's init runs as the session's host ids (idmap.h), and opens its bind
// sources through <session>/contexts/<name>/: let the session's group through those two
// directories (traverse only; what is in them keeps its own modes). Nothing without mappings.
Status OpenToSessionIds(const std::filesystem::path& container_dir, const boost::json::object& spec,
                        native::Sys& sys = native::LinuxSys());
// The host id an id inside the spec's user namespace is (the id itself without mappings). Pure.
uint32_t HostId(const boost::json::object& spec, const char* mappings, uint32_t id);

}  // namespace sandshim::session
