#include "shim/session/workspace/layer.h"

#include <sys/mount.h>

#include "shim/core/fs.h"

namespace sandshim::session {

Status MountLayer(const std::filesystem::path& base, const std::filesystem::path& layer_dir,
                  const std::filesystem::path& target, native::Sys& sys) {
  // overlayfs splits its options at ',' and lowerdir at ':': such paths cannot be passed.
  for (const auto& p : {base, layer_dir})
    if (p.string().find_first_of(",:") != std::string::npos)
      return MakeError("writable layer: path " + p.string() + " contains ',' or ':'", EINVAL);
  TRY(fs::MkdirAll(layer_dir / "upper", 0755));
  TRY(fs::MkdirAll(layer_dir / "work", 0700));
  TRY(fs::MkdirAll(target, 0755));
  std::string opts = "lowerdir=" + base.string() + ",upperdir=" + (layer_dir / "upper").string() +
                     ",workdir=" + (layer_dir / "work").string();
  if (sys.Mount("sandshim-layer", target.c_str(), "overlay", MS_NOSUID | MS_NODEV, opts.c_str()) != 0)
    return ErrnoError("mount overlay on " + target.string());
  return Ok();
}

Status UnmountLayer(const std::filesystem::path& target, native::Sys& sys) {
  if (sys.Umount2(target.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT)
    return ErrnoError("umount " + target.string());
  return Ok();
}

}  // namespace sandshim::session
