#include "shim/runtime/state_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <algorithm>

#include "shim/core/fs.h"
#include "shim/core/ids.h"

namespace sandshim::runtime {

Result<ContainerRecord> NotFound(std::string_view id) {
  // containerd's shim matches "does not exist" to treat a delete as already done.
  return MakeError("container " + std::string(id) + " does not exist", ENOENT);
}

Result<RecordLock> StateStore::LockImpl(std::string_view id, LockMode mode, bool wait) const {
  TRY(ValidateId(id));
  auto dir = Dir(id);
  if (mode == LockMode::kCreate) {
    // Private: records, specs and journals carry the caller's secrets (--env), so every
    // record directory is 0700 and nobody else may list the root. The root itself stays
    // traversable (0711, as runc's): a native session's init, root of its own user
    // namespace and so no one's root on the host, must reach its rootfs below it (the
    // session directory then admits only that session's ids, see Sessions::SetUpIdmap).
    TRY(fs::MkdirAll(root_, 0711));
    if (::chmod(root_.c_str(), 0711) != 0) return ErrnoError("chmod " + root_.string());
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return ErrnoError("mkdir " + dir.string());
  }
  auto lock_path = dir / ".lock";
  for (;;) {
    UniqueFd fd(::open(lock_path.c_str(), O_RDWR | O_CLOEXEC | (mode == LockMode::kCreate ? O_CREAT : 0), 0600));
    if (!fd.valid()) {
      if (errno == ENOENT) return NotFound(id).error();
      return ErrnoError("open " + lock_path.string());
    }
    if (::flock(fd.get(), LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
      if (errno == EINTR) continue;
      return ErrnoError("lock " + std::string(id));
    }
    // The holder before us may have erased the directory: our lock would then guard a
    // deleted file. Only a lock on the file still at the path counts.
    struct stat held, now;
    if (::fstat(fd.get(), &held) == 0 && ::stat(lock_path.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev)
      return RecordLock(std::string(id), std::move(fd));
    if (mode != LockMode::kCreate) return NotFound(id).error();
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return ErrnoError("mkdir " + dir.string());
  }
}

Result<RecordLock> StateStore::Lock(std::string_view id, LockMode mode) const { return LockImpl(id, mode, true); }
Result<RecordLock> StateStore::TryLock(std::string_view id) const { return LockImpl(id, LockMode::kExisting, false); }

bool StateStore::HasRecord(std::string_view id) const { return fs::Exists(Dir(id) / "state.json"); }

Result<ContainerRecord> StateStore::Load(std::string_view id) const {
  TRY(ValidateId(id));
  auto text = fs::ReadFile(Dir(id) / "state.json");
  if (!text) return NotFound(id);
  auto rec = RecordFromJson(*text);
  if (!rec) return rec.error().Wrap("container " + std::string(id));
  return rec;
}

Status StateStore::Save(const RecordLock& lock, const ContainerRecord& r) const {
  return fs::WriteFileAtomic(Dir(lock.id()) / "state.json", boost::json::serialize(ToJson(r)), 0600, r.durable);
}

Status StateStore::Erase(const RecordLock& lock) const { return fs::RemoveAll(Dir(lock.id())); }

std::vector<std::string> StateStore::List() const {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root_, ec)) {
    std::string name = e.path().filename().string();
    if (e.is_directory(ec) && ValidateId(name).ok()) ids.push_back(name);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace sandshim::runtime
