#include "shim/session/rootfs_in_use.h"

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/session/record.h"

namespace sandshim::session {

Result<std::vector<std::filesystem::path>> RootfsInUse(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& d : std::filesystem::directory_iterator(root / "@sessions", ec)) {
    auto file = d.path() / "session.json";
    if (!fs::Exists(file)) continue;
    auto text = TRY(fs::ReadFile(file));
    auto r = TRY_CTX(RecordFromJson(TRY(bundle::ParseJson(text, file.string()))), file.string());
    if (!r.rootfs.empty()) out.emplace_back(r.rootfs);
  }
  return out;
}

}  // namespace sandshim::session
