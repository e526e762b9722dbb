#include "shim/runtime/record_rebase.h"

#include "bundle/json_rebase.h"
#include "bundle/spec.h"
#include "shim/core/fs.h"

namespace sandshim::runtime {

static Status RebaseFile(const std::filesystem::path& file, const std::vector<std::pair<std::string, std::string>>& moves) {
  auto text = fs::ReadFile(file);
  if (!text) return Ok();  // no journal yet: nothing recorded to move
  auto v = TRY(bundle::ParseJson(*text, file.string()));
  int n = 0;
  for (const auto& [from, to] : moves) n += bundle::RebasePaths(v, from, to);
  if (n == 0) return Ok();
  // Not fsync'd, like a native record: what it names dies with the kernel.
  return fs::WriteFileAtomic(file, boost::json::serialize(v), 0600, /*sync=*/false);
}

Status RebaseRecord(const StateStore& store, const std::string& id,
                    const std::vector<std::pair<std::string, std::string>>& moves) {
  auto lock = TRY(store.Lock(id));
  TRY(RebaseFile(store.Dir(id) / "journal.json", moves));
  return RebaseFile(store.Dir(id) / "state.json", moves);
}

}  // namespace sandshim::runtime
