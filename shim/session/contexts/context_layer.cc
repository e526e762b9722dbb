#include "shim/session/contexts/context_layer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/core/fs.h"
#include "shim/session/workspace/layer.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

std::filesystem::path ContextRoot(const std::filesystem::path& context_dir) { return context_dir / layout::kRootfs; }

Status MountContextLayer(const SessionRecord& s, const std::filesystem::path& session_dir,
                         const std::filesystem::path& context_dir, boost::json::object& spec, native::Sys& sys) {
  if (s.layer != LayerKind::kOverlayfs) return Ok();
  // The session's lower: its idmapped base (sessions.cc, M11) or the rootfs itself.
  std::filesystem::path lower = s.id_base ? session_dir / layout::kBaseId : std::filesystem::path(s.rootfs);
  auto layer = context_dir / layout::kLayer;
  TRY(fs::MkdirAll(layer / layout::kUpper, layout::kUpper.mode));
  // The merged root takes its owner from the upper directory: the session's root, as its own.
  if (s.id_base && sys.Fchownat(AT_FDCWD, (layer / layout::kUpper).c_str(), s.id_base, s.id_base, 0) != 0)
    return ErrnoError("chown the context's upper layer");
  TRY(MountLayer(lower, layer, ContextRoot(context_dir), sys));
  // The init (host ids base..) opens its rootfs below these: their group through, no one else
  // (as the session's directory: sessions.cc; the files in them keep their own modes).
  if (s.id_base)
    for (const auto& d : {context_dir.parent_path(), context_dir})
      if (sys.Fchownat(AT_FDCWD, d.c_str(), 0, s.id_base, 0) != 0 || sys.Fchmodat(AT_FDCWD, d.c_str(), 0710, 0) != 0)
        return ErrnoError("open " + d.string() + " to the session's ids");
  auto* root = spec.if_contains("root") ? spec["root"].if_object() : nullptr;
  if (!root) return MakeError("the context's spec has no root", EINVAL);
  (*root)["path"] = ContextRoot(context_dir).string();
  return Ok();
}

Status UnmountContextLayer(const std::filesystem::path& context_dir, native::Sys& sys) {
  return UnmountLayer(ContextRoot(context_dir), sys);
}

}  // namespace sandshim::session
