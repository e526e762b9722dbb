#include "shim/runsc/control_netns.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "shim/core/fs.h"
#include "shim/core/unique_fd.h"
#include "shim/linux/netns.h"

namespace sandshim::runsc {
namespace {

constexpr const char* kDir = "@control";  // '@' never occurs in an id: no record can clash

std::filesystem::path HoldersDir(const std::filesystem::path& netns) { return netns.parent_path() / "users"; }

// The root directory's flock: held while the namespace or its holders change.
Result<UniqueFd> LockRoot(const std::filesystem::path& netns) {
  auto root = netns.parent_path().parent_path();
  UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + root.string());
  while (::flock(fd.get(), LOCK_EX) != 0)
    if (errno != EINTR) return ErrnoError("lock " + root.string());
  return fd;
}

bool HasHolders(const std::filesystem::path& netns) {
  std::error_code ec;
  return std::filesystem::directory_iterator(HoldersDir(netns), ec) != std::filesystem::directory_iterator();
}

// With the root locked: unmount and remove the namespace and its directory once no one holds it.
Status RemoveIfUnheld(const std::filesystem::path& netns) {
  if (HasHolders(netns)) return Ok();
  TRY(net::RemoveNetns(netns));
  if (::rmdir(HoldersDir(netns).c_str()) != 0 && errno != ENOENT) return ErrnoError("rmdir " + HoldersDir(netns).string());
  if (::rmdir(netns.parent_path().c_str()) != 0 && errno != ENOENT && errno != ENOTEMPTY)
    return ErrnoError("rmdir " + netns.parent_path().string());
  return Ok();
}

}  // namespace

std::filesystem::path ControlNetnsPath(const std::filesystem::path& state_dir) { return state_dir / "control.netns"; }

Status CreateControlNetns(const std::filesystem::path& path) {
  if (net::IsNetns(path)) return Ok();
  return net::CreateNetns(path);
}

Status RemoveControlNetns(const std::filesystem::path& path) { return net::RemoveNetns(path); }

std::filesystem::path SharedControlNetns(const std::filesystem::path& root) { return root / kDir / "netns"; }

bool IsSharedControlNetns(const std::filesystem::path& netns) {
  return netns.filename() == "netns" && netns.parent_path().filename() == kDir;
}

Status HoldSharedControlNetns(const std::filesystem::path& netns, const std::string& user, const std::string& id) {
  auto lock = TRY(LockRoot(netns));
  TRY(fs::MkdirAll(HoldersDir(netns), 0700));
  // The hold first: a crash after it leaves a marker gc sweeps, never a namespace in use
  // with no marker (which the next release elsewhere would remove under a running create).
  auto mark = HoldersDir(netns) / user;
  {
    UniqueFd f(::open(mark.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!f.valid() || ::write(f.get(), id.data(), id.size()) != static_cast<ssize_t>(id.size()))
      return ErrnoError("hold " + netns.string());
  }
  if (net::IsNetns(netns)) return Ok();
  if (auto s = net::CreateNetns(netns); !s) {
    ::unlink(mark.c_str());
    (void)RemoveIfUnheld(netns);
    return s;
  }
  return Ok();
}

Status ReleaseSharedControlNetns(const std::filesystem::path& netns, const std::string& user) {
  if (!fs::Exists(netns.parent_path())) return Ok();
  auto lock = TRY(LockRoot(netns));
  if (::unlink((HoldersDir(netns) / user).c_str()) != 0 && errno != ENOENT)
    return ErrnoError("release " + netns.string());
  return RemoveIfUnheld(netns);
}

Result<std::vector<std::string>> SweepSharedControlNetns(const std::filesystem::path& root) {
  std::vector<std::string> removed;
  auto netns = SharedControlNetns(root);
  if (!fs::Exists(netns.parent_path())) return removed;
  auto lock = TRY(LockRoot(netns));
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(HoldersDir(netns), ec)) {
    auto id = fs::ReadFile(e.path());
    // An empty marker is a hold made by a create that crashed mid-write (the lock keeps a
    // live one from being seen half-written).
    if (id && !id->empty() && id->find('/') == std::string::npos && fs::Exists(root / *id)) continue;
    if (::unlink(e.path().c_str()) != 0 && errno != ENOENT) return ErrnoError("unlink " + e.path().string());
    removed.push_back("control netns hold " + e.path().filename().string() + " (its container is gone)");
  }
  bool was = net::IsNetns(netns);
  TRY(RemoveIfUnheld(netns));
  if (was && !net::IsNetns(netns)) removed.push_back("control netns " + netns.string() + " (no container holds it)");
  return removed;
}

namespace {

class SystemKeeper final : public ControlNetnsKeeper {
 public:
  std::filesystem::path SharedFor(const std::filesystem::path& root) const override { return SharedControlNetns(root); }
  Status Hold(const std::filesystem::path& netns, const std::string& user, const std::string& id) override {
    return HoldSharedControlNetns(netns, user, id);
  }
  Status Release(const std::filesystem::path& netns, const std::string& user) override {
    return ReleaseSharedControlNetns(netns, user);
  }
  Result<std::filesystem::path> MakePrivate(const std::filesystem::path& path) override {
    TRY(CreateControlNetns(path));
    return path;
  }
  Status RemovePrivate(const std::filesystem::path& path) override { return RemoveControlNetns(path); }
};

}  // namespace

ControlNetnsKeeper& SystemControlNetns() {
  static SystemKeeper keeper;
  return keeper;
}

}  // namespace sandshim::runsc
