// Session snapshots (#35, fork): Sessions::Snapshot pauses a session (session_pause.cc), keeps
// its checkpoint image as <root>/@snapshots/<name>/image (hard links: the session's own copy
// goes at its resume) with snapshot.json naming the source, and resumes it; a create with
// from_snapshot restores a new session from the image instead of booting one (its profile must
// give the same mounts: the source's flags). Root's, 0700: an image holds a sandbox's memory,
// never another tenant's to read. A snapshot is made in .tmp-<name> and renamed into place, so
// a name never names half an image; a crash leaves .tmp-<name>, which the next snapshot of that
// name, RemoveSnapshot and gc remove. Who owns a .tmp-: a snapshot being made holds a shared
// flock on the snapshots directory from before its .tmp- exists until it is renamed or
// removed; gc removes .tmp- directories only under the exclusive lock, taken without waiting
// (a snapshot in flight: the next gc).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/unique_fd.h"
#include "shim/session/store/audit.h"
#include "shim/session/contexts/context_spare.h"
#include "shim/session/sessions.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;
namespace {

// Links (or, across filesystems, copies) every file of the paused session's image into dest.
Status KeepImage(const std::filesystem::path& from, const std::filesystem::path& dest) {
  if (::mkdir(dest.c_str(), 0700) != 0) return ErrnoError("mkdir " + dest.string());
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(from, ec)) {
    auto to = dest / e.path().filename();
    if (::link(e.path().c_str(), to.c_str()) == 0) continue;
    if (errno != EXDEV) return ErrnoError("link " + to.string());
    std::filesystem::copy_file(e.path(), to, ec);
    if (ec) return MakeError("copy " + to.string() + ": " + ec.message(), ec.value());
  }
  if (ec) return MakeError("read " + from.string() + ": " + ec.message(), ec.value());
  return Ok();
}

// The snapshots directory, flocked (how: LOCK_SH or LOCK_EX, maybe | LOCK_NB).
Result<UniqueFd> LockSnapshots(const std::filesystem::path& dir, int how) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + dir.string());
  if (::flock(fd.get(), how) != 0) return ErrnoError("lock " + dir.string());
  return fd;
}

}  // namespace

Result<std::filesystem::path> Sessions::ForkImage(const std::string& name) const {
  if (name.empty()) return std::filesystem::path();
  TRY_CTX(ValidateId(name), "--from-snapshot");
  auto image = SnapshotsDir() / name / layout::kSnapshotImage;
  if (!fs::Exists(image)) return MakeError("snapshot " + name + " does not exist", ENOENT);
  return image;
}

Result<SessionRecord> Sessions::Snapshot(const std::string& ref, const std::string& name) {
  TRY_CTX(ValidateId(name), "snapshot name");
  auto dest = SnapshotsDir() / name, tmp = SnapshotsDir() / (".tmp-" + name);
  if (fs::Exists(dest)) return MakeError("snapshot " + name + " already exists", EEXIST);
  auto id = TRY(Resolve(ref));
  auto refill = TRY(WaitForRefill(Dir(id)));  // a spare being made (context_spare.h: lock order)
  auto lock = TRY(store_.Lock(id));
  auto r = TRY(PauseLocked(TRY(Load(id))));
  UniqueFd building;  // a live snapshot's claim on its .tmp- (gc leaves it), to the end of this call
  auto kept = [&]() -> Status {
    TRY(fs::MkdirAll(SnapshotsDir(), 0700));
    building = TRY(LockSnapshots(SnapshotsDir(), LOCK_SH));
    TRY(fs::RemoveAll(tmp));  // what a snapshot of this name that died left
    if (::mkdir(tmp.c_str(), 0700) != 0) return ErrnoError("mkdir " + tmp.string());
    TRY(KeepImage(SnapshotDir(Dir(id)), tmp / layout::kSnapshotImage));
    json::object meta{{"source", id}, {"backend", r.backend}, {"created", log::NowRfc3339()}};
    TRY(fs::WriteFileAtomic(tmp / layout::kSnapshotMeta, json::serialize(meta), layout::kSnapshotMeta.mode));
    if (::rename(tmp.c_str(), dest.c_str()) != 0) return ErrnoError("rename to " + dest.string());
    return Ok();
  }();
  if (!kept) (void)fs::RemoveAll(tmp);
  // The source runs on whatever happened to its copy.
  auto resumed = ResumeLocked(std::move(r));
  if (!kept) return kept.error().Wrap("snapshot " + name);
  if (resumed) (void)AppendAudit(resumed->audit, "snapshot", {{"session", id}, {"snapshot", name}});
  return resumed;
}

json::array Sessions::ListSnapshots() const {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(SnapshotsDir(), ec))
    if (auto n = e.path().filename().string(); !n.starts_with(".tmp-") && e.is_directory(ec)) names.push_back(n);
  std::sort(names.begin(), names.end());
  json::array out;
  for (const auto& n : names) {
    auto meta = bundle::ParseJson(fs::ReadFile(SnapshotsDir() / n / layout::kSnapshotMeta).value_or("{}"), std::string(layout::kSnapshotMeta.rel));
    json::object o = meta && meta->is_object() ? meta->as_object() : json::object();
    o["name"] = n;
    int64_t bytes = 0;
    for (const auto& f : std::filesystem::directory_iterator(SnapshotsDir() / n / layout::kSnapshotImage, ec))
      if (f.is_regular_file(ec)) bytes += static_cast<int64_t>(f.file_size(ec));
    o["bytes"] = bytes;
    out.push_back(std::move(o));
  }
  return out;
}

void Sessions::GcSnapshotLeftovers(SessionGcReport& rep) {
  if (!fs::Exists(SnapshotsDir())) return;
  auto lock = LockSnapshots(SnapshotsDir(), LOCK_EX | LOCK_NB);
  if (!lock) {
    if (lock.error().err_no != EWOULDBLOCK) rep.errors.push_back("snapshots: " + lock.error().msg);
    return;  // a snapshot is being made: its .tmp- is its own; the next gc looks again
  }
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(SnapshotsDir(), ec)) {
    auto n = e.path().filename().string();
    if (!n.starts_with(".tmp-")) continue;
    if (auto s = fs::RemoveAll(e.path()); !s) rep.errors.push_back("snapshot " + n + ": " + s.error().msg);
    else rep.removed.push_back("snapshot " + n + " (a snapshot that did not finish)");
  }
}

Status Sessions::RemoveSnapshot(const std::string& name) {
  TRY_CTX(ValidateId(name), "snapshot name");
  bool there = fs::Exists(SnapshotsDir() / name);
  TRY(fs::RemoveAll(SnapshotsDir() / (".tmp-" + name)));
  if (!there) return MakeError("snapshot " + name + " does not exist", ENOENT);
  return fs::RemoveAll(SnapshotsDir() / name);
}

}  // namespace sandshim::session
