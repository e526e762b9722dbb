// The write-ahead journal of one container: every resource that will need undoing (a runsc
// sandbox, a process, a mount, a cgroup, a directory) is appended durably *before* it is
// created. delete and gc replay it backwards; each undo step is idempotent, so a crash at any
// instant leaves nothing that a replay cannot remove.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::runtime {

struct JournalEntry {
  std::string kind;  // "runsc-container", "dir", "file", "process", ...
  boost::json::object data;
};

class Journal {
 public:
  // durable=false: entries are renamed into place (any later process sees them, so a killed
  // sandshim is still undone) but not fsync'd: for containers whose every resource dies
  // with the kernel (cgroups, processes), an OS crash leaves nothing to undo.
  explicit Journal(std::filesystem::path file, bool durable = true) : file_(std::move(file)), durable_(durable) {}
  // Reads an existing journal; a missing or empty file is an empty journal (empty: a
  // non-durable write cut by an OS crash).
  static Result<Journal> Load(const std::filesystem::path& file, bool durable = true);
  // Records e (tmp + [fsync] + rename) before returning.
  Status Append(JournalEntry e);
  const std::vector<JournalEntry>& entries() const { return entries_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  bool durable_ = true;
  std::vector<JournalEntry> entries_;
};

using UndoFn = std::function<Status(const JournalEntry&)>;

// Undoes every entry, newest first. Every step runs even when an earlier one failed; the
// failures are joined into one error ("undo runsc-container: …; undo dir: …").
Status Replay(const std::vector<JournalEntry>& entries, const UndoFn& undo);

}  // namespace sandshim::runtime
