// StateStore: one directory per container under the runtime root (runc's --root), holding
// state.json and journal.json, guarded by a flock on <root>/<id>/.lock. Writes are atomic
// (fs::WriteFileAtomic). Verbs on different ids never contend; a listing takes no lock and
// reads each record as a whole file, which rename keeps consistent.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/unique_fd.h"
#include "shim/runtime/record.h"

namespace sandshim::runtime {

class RecordLock {
 public:
  RecordLock(std::string id, UniqueFd fd) : id_(std::move(id)), fd_(std::move(fd)) {}
  const std::string& id() const { return id_; }

 private:
  std::string id_;
  UniqueFd fd_;  // closing it releases the flock
};

enum class LockMode { kExisting, kCreate };

class StateStore {
 public:
  explicit StateStore(std::filesystem::path root) : root_(std::move(root)) {}
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path Dir(std::string_view id) const { return root_ / std::string(id); }

  // Blocks until this process holds the container's lock. kExisting fails with "does not
  // exist" when there is no such container; kCreate makes its directory.
  Result<RecordLock> Lock(std::string_view id, LockMode mode = LockMode::kExisting) const;
  // Like Lock(kExisting) but fails with EWOULDBLOCK instead of waiting (gc uses it).
  Result<RecordLock> TryLock(std::string_view id) const;
  bool HasRecord(std::string_view id) const;
  Result<ContainerRecord> Load(std::string_view id) const;
  // Atomic always; fsync'd when r.durable.
  Status Save(const RecordLock& lock, const ContainerRecord& r) const;
  // Removes the container's directory. The lock stays held until the RecordLock dies.
  Status Erase(const RecordLock& lock) const;
  // Names of every container directory (with or without a record).
  std::vector<std::string> List() const;

 private:
  Result<RecordLock> LockImpl(std::string_view id, LockMode mode, bool wait) const;
  std::filesystem::path root_;
};

Result<ContainerRecord> NotFound(std::string_view id);

}  // namespace sandshim::runtime
