#include "shim/session/workspace/layer.h"

#include <sys/mount.h>

#include "shim/core/fs.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

Status MountLayer(const std::filesystem::path& base, const std::filesystem::path& layer_dir,
                  const std::filesystem::path& target, native::Sys& sys) {
  // overlayfs splits its options at ',' and lowerdir at ':': such paths cannot be passed.
  for (const auto& p : {base, layer_dir})
    if (p.string().find_first_of(",:") != std::string::npos)
      return MakeError("writable layer: path " + p.string() + " contains ',' or ':'", EINVAL);
  TRY(fs::MkdirAll(layer_dir / layout::kUpper, layout::kUpper.mode));
  TRY(fs::MkdirAll(layer_dir / layout::kWork, layout::kWork.mode));
  TRY(fs::MkdirAll(target, 0755));
  std::string opts = "lowerdir=" + base.string() + ",upperdir=" + (layer_dir / layout::kUpper).string() +
                     ",workdir=" + (layer_dir / layout::kWork).string();
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
