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
  explicit Journal(std::filesystem::path file) : file_(std::move(file)) {}
  // Reads an existing journal; a missing file is an empty journal.
  static Result<Journal> Load(const std::filesystem::path& file);
  // Records e durably (tmp + fsync + rename) before returning.
  Status Append(JournalEntry e);
  const std::vector<JournalEntry>& entries() const { return entries_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  std::vector<JournalEntry> entries_;
};

using UndoFn = std::function<Status(const JournalEntry&)>;

// Undoes every entry, newest first. Every step runs even when an earlier one failed; the
// failures are joined into one error ("undo runsc-container: …; undo dir: …").
Status Replay(const std::vector<JournalEntry>& entries, const UndoFn& undo);

}  // namespace sandshim::runtime
