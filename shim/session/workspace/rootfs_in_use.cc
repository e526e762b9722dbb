#include "shim/session/workspace/rootfs_in_use.h"

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/session/store/record.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

static Status AddStore(const std::filesystem::path& store, std::vector<std::filesystem::path>& out) {
  std::error_code ec;
  for (const auto& d : std::filesystem::directory_iterator(store, ec)) {
    auto file = d.path() / layout::kRecord;
    if (!fs::Exists(file)) continue;
    auto text = TRY(fs::ReadFile(file));
    auto r = TRY_CTX(RecordFromJson(TRY(bundle::ParseJson(text, file.string()))), file.string());
    if (!r.rootfs.empty()) out.emplace_back(r.rootfs);
  }
  return Ok();
}

Result<std::vector<std::filesystem::path>> RootfsInUse(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> out;
  RootLayout at(root);
  TRY(AddStore(at.sessions(), out));
  // Warm pools' members (session/pool.h) are sessions waiting for a claim.
  std::error_code ec;
  for (const auto& pool : std::filesystem::directory_iterator(at.pools(), ec))
    TRY(AddStore(pool.path() / layout::kPoolMembers, out));
  return out;
}

}  // namespace sandshim::session
