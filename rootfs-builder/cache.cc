#include "rootfs-builder/cache.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "bundle/spec.h"
#include "shim/core/remove_tree.h"
#include "shim/core/fs.h"

namespace sandshim::rootfs {

namespace json = boost::json;
namespace stdfs = std::filesystem;

bool IsKey(std::string_view key) {
  return key.size() == 64 && std::all_of(key.begin(), key.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool IsInside(const stdfs::path& path, const stdfs::path& dir) {
  auto p = path.lexically_normal(), d = dir.lexically_normal();
  auto rel = p.lexically_relative(d);
  return !rel.empty() && *rel.begin() != "..";
}

static Result<CacheEntry> ReadEntry(const stdfs::path& dir) {
  auto text = TRY(fs::ReadFile(dir / "meta.json"));
  auto v = TRY(bundle::ParseJson(text, (dir / "meta.json").string()));
  if (!v.is_object()) return MakeError((dir / "meta.json").string() + ": not an object", EINVAL);
  const auto& o = v.get_object();
  CacheEntry e;
  e.key = bundle::GetString(o, "key");
  e.source = bundle::GetString(o, "source");
  e.created = bundle::GetString(o, "created");
  if (const auto* k = o.if_contains("keep_privileged"); k && k->is_bool()) e.keep_privileged = k->as_bool();
  if (const auto* c = bundle::GetObject(o, "config")) e.config = ImageConfigFromJson(*c);
  e.dir = dir;
  e.rootfs = dir / "rootfs";
  return e;
}

Status Cache::Create() const {
  TRY(fs::MkdirAll(dir_, 0700));
  struct stat st {};
  if (fs::Exists(dir_ / ".locks") && ::lstat(dir_.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 077))
    if (::chmod(dir_.c_str(), 0700) != 0) return ErrnoError("chmod " + dir_.string());
  return Ok();
}

Result<std::optional<CacheEntry>> Cache::Find(const std::string& key) const {
  if (!IsKey(key)) return MakeError("not a rootfs key: " + key, EINVAL);
  if (!fs::Exists(EntryDir(key) / "meta.json")) return std::optional<CacheEntry>();
  return std::optional<CacheEntry>(TRY(ReadEntry(EntryDir(key))));
}

Result<UniqueFd> Cache::Lock(const std::string& key) const {
  if (!IsKey(key)) return MakeError("not a rootfs key: " + key, EINVAL);
  TRY(fs::MkdirAll(dir_ / ".locks", 0700));
  auto path = dir_ / ".locks" / (key + ".lock");
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return ErrnoError("open " + path.string());
  while (::flock(fd.get(), LOCK_EX) != 0)
    if (errno != EINTR) return ErrnoError("lock " + path.string());
  return fd;
}

Result<stdfs::path> Cache::MakeTemp(const std::string& key) const {
  std::string tmpl = (dir_ / (".tmp-" + key + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) return ErrnoError("mkdtemp " + tmpl);
  return stdfs::path(tmpl);
}

Status Cache::Publish(const stdfs::path& tmp, const CacheEntry& e) const {
  json::object meta{{"key", e.key},         {"source", e.source},
                    {"created", e.created}, {"keep_privileged", e.keep_privileged},
                    {"config", ToJson(e.config)}};
  TRY(fs::WriteFileAtomic(tmp / "meta.json", json::serialize(meta), 0644));
  // The entry stays mkdtemp's 0700: root mounts it for sessions, nobody else walks in (H3).
  if (::rename(tmp.c_str(), EntryDir(e.key).c_str()) != 0) return ErrnoError("publish " + EntryDir(e.key).string());
  UniqueFd d(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (d.valid()) ::fsync(d.get());
  return Ok();
}

Result<std::vector<CacheEntry>> Cache::List(const std::vector<stdfs::path>& in_use) const {
  std::vector<CacheEntry> out;
  std::error_code ec;
  stdfs::directory_iterator it(dir_, ec);
  if (ec == std::errc::no_such_file_or_directory) return out;
  if (ec) return ErrnoError("list " + dir_.string(), ec.value());
  for (const auto& d : it) {
    std::string name = d.path().filename().string();
    if (!IsKey(name) || !fs::Exists(d.path() / "meta.json")) continue;
    auto e = ReadEntry(d.path());
    if (!e) continue;  // a foreign or damaged directory is not ours to describe
    e->key = name;
    for (const auto& p : in_use) e->in_use = e->in_use || IsInside(p, d.path());
    out.push_back(std::move(*e));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  return out;
}

Status Cache::Remove(const std::string& key) const {
  auto lock = TRY(Lock(key));
  if (!fs::Exists(EntryDir(key))) return MakeError("no rootfs " + key + " in " + dir_.string(), ENOENT);
  auto trash = TRY(MakeTemp(key));
  // rename onto the fresh empty directory: atomic, and then the entry is gone for readers.
  if (::rename(EntryDir(key).c_str(), trash.c_str()) != 0) return ErrnoError("remove " + EntryDir(key).string());
  // The rename brought the entry's own mode along (0755 in caches older than 0700 entries):
  // close the trash to everyone else before walking it, through an fd, never by name.
  UniqueFd t(::open(trash.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (t.valid()) ::fchmod(t.get(), 0700);
  return fs::RemoveTree(trash);
}

GcReport Cache::Gc(const std::vector<stdfs::path>& in_use) const {
  GcReport r;
  auto entries = List(in_use);
  if (!entries) {
    r.errors.push_back(entries.error().msg);
    return r;
  }
  for (const auto& e : *entries) {
    if (e.in_use) {
      r.kept.push_back(e.key);
      continue;
    }
    if (auto s = Remove(e.key); !s) r.errors.push_back(s.error().msg);
    else r.removed.push_back(e.key);
  }
  // Remains of builds that died: their key's lock is free (a live build holds it).
  std::error_code ec;
  std::vector<stdfs::path> tmps;
  for (const auto& d : stdfs::directory_iterator(dir_, ec)) tmps.push_back(d.path());
  for (const auto& path : tmps) {
    std::string name = path.filename().string();
    if (!name.starts_with(".tmp-") || name.size() < 5 + 64) continue;
    std::string key = name.substr(5, 64);
    if (!IsKey(key)) continue;
    UniqueFd fd(::open((dir_ / ".locks" / (key + ".lock")).c_str(), O_RDWR | O_CLOEXEC));
    if (fd.valid() && ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) continue;  // being built now
    if (auto s = fs::RemoveTree(path); !s) r.errors.push_back(s.error().msg);
    else r.removed.push_back(name);
  }
  return r;
}

}  // namespace sandshim::rootfs
