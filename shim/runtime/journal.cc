#include "shim/runtime/journal.h"

#include "bundle/spec.h"
#include "shim/core/fs.h"

namespace sandshim::runtime {

namespace json = boost::json;

Result<Journal> Journal::Load(const std::filesystem::path& file, bool durable) {
  Journal j(file, durable);
  auto text = fs::ReadFile(file);
  if (!text || text->empty()) return j;  // nothing journaled yet
  auto v = TRY(bundle::ParseJson(*text, "journal " + file.string()));
  if (!v.is_array()) return MakeError("journal " + file.string() + ": not an array", EINVAL);
  for (const auto& e : v.get_array()) {
    if (!e.is_object()) continue;
    JournalEntry entry{bundle::GetString(e.get_object(), "kind"), {}};
    if (const auto* d = bundle::GetObject(e.get_object(), "data")) entry.data = *d;
    j.entries_.push_back(std::move(entry));
  }
  return j;
}

Status Journal::Append(JournalEntry e) {
  entries_.push_back(std::move(e));
  json::array arr;
  for (const auto& x : entries_) arr.push_back(json::object{{"kind", x.kind}, {"data", x.data}});
  auto s = fs::WriteFileAtomic(file_, json::serialize(arr), 0600, durable_);
  if (!s) entries_.pop_back();  // not durable: the caller must not create the resource
  return s;
}

Status Replay(const std::vector<JournalEntry>& entries, const UndoFn& undo) {
  std::string errors;
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    auto s = undo(*it);
    if (s) continue;
    if (!errors.empty()) errors += "; ";
    errors += "undo " + it->kind + ": " + s.error().msg;
  }
  if (errors.empty()) return Ok();
  return MakeError(errors, EIO);
}

}  // namespace sandshim::runtime
