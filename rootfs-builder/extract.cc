#include "rootfs-builder/extract.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

#include "rootfs-builder/digest.h"
#include "rootfs-builder/escape.h"
#include "shim/core/remove_tree.h"
#include "shim/core/unique_fd.h"

namespace sandshim::rootfs {

ExtractOptions::ExtractOptions() : same_owner(::geteuid() == 0) {}

namespace {

constexpr std::string_view kWhPrefix = ".wh.";
constexpr std::string_view kOpaque = ".wh..wh..opq";

std::vector<std::string_view> Split(std::string_view p) {
  std::vector<std::string_view> out;
  while (!p.empty()) {
    size_t s = p.find('/');
    std::string_view c = p.substr(0, s);
    if (!c.empty() && c != ".") out.push_back(c);
    if (s == std::string_view::npos) break;
    p.remove_prefix(s + 1);
  }
  return out;
}

// The kernel does the resolving: beneath dirfd, no symlinks (magic or not) anywhere in path.
int OpenBeneath(int dirfd, const std::string& path, int flags) {
  struct open_how how {};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC | O_NOFOLLOW);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dirfd, path.empty() ? "." : path.c_str(), &how, sizeof how));
}

struct ArchiveFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveFree>;

// Feeds libarchive from an fd (not a path: a blob is opened once, beneath its layout), hashing
// every byte it hands over when a digest is to be checked.
struct HashingReader {
  int fd = -1;
  bool hashing = false;
  Sha256 hash;
  std::string buf = std::string(1 << 20, '\0');

  static la_ssize_t Read(archive*, void* self, const void** out) {
    auto* r = static_cast<HashingReader*>(self);
    ssize_t n;
    do n = ::read(r->fd, r->buf.data(), r->buf.size());
    while (n < 0 && errno == EINTR);
    if (n > 0 && r->hashing) r->hash.Update(r->buf.data(), static_cast<size_t>(n));
    *out = r->buf.data();
    return n;
  }
  // libarchive stops at the tar trailer; the digest covers the whole blob.
  Result<std::string> Finish() {
    la_ssize_t n;
    const void* ignored;
    while ((n = Read(nullptr, this, &ignored)) > 0) {
    }
    if (n < 0) return ErrnoError("read");
    return hash.HexFinal();
  }
};

// Only tar (ustar, pax, gnu), plain or gzip or zstd: the formats images use, and all a static
// link then pulls in (no xar/7zip/rar readers with their libraries and parsers).
Result<ArchivePtr> OpenArchive(HashingReader* reader, const std::string& what) {
  ArchivePtr a(archive_read_new());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_zstd(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_gnutar(a.get());
  archive_read_support_format_empty(a.get());
  int r = archive_read_open(a.get(), reader, nullptr, &HashingReader::Read, nullptr);
  if (r != ARCHIVE_OK) return MakeError(what + ": " + archive_error_string(a.get()), EIO);
  return a;
}

class Extractor {
 public:
  Extractor(int root, const ExtractOptions& o) : root_(root), o_(o) {}

  Status Entry(archive* a, archive_entry* e) {
    const char* raw = archive_entry_pathname(e);
    std::string name = raw ? raw : "";
    auto clean = CleanEntryPath(name);
    if (!clean) return Refuse(name, clean.error().msg);
    std::string path = *clean;
    mode_t type = archive_entry_filetype(e);
    TRY(Charge(name, e));
    if (path.empty()) return Ok();  // "./": the target itself keeps its own metadata
    if (o_.layout) {
      auto admitted = TRY(AdmitToLayout(name, path, e));
      if (!admitted) return Ok();
    }
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);

    if (o_.whiteouts && base.starts_with(kWhPrefix)) return Whiteout(name, dir, base);

    auto parent = OpenDir(dir, true);
    if (!parent) return Refuse(name, parent.error().msg);
    int pfd = parent->get();

    if (const char* hl = archive_entry_hardlink(e)) return HardLink(name, pfd, path, base, hl);

    struct stat st {};
    bool exists = ::fstatat(pfd, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (exists && !(type == AE_IFDIR && S_ISDIR(st.st_mode))) TRY_CTX(fs::RemoveTreeAt(pfd, base), "entry " + Quoted(name));
    created_.insert(path);

    switch (type) {
      case AE_IFDIR: return Dir(name, pfd, path, base, e, exists && S_ISDIR(st.st_mode));
      case AE_IFREG: return File(name, pfd, base, a, e);
      case AE_IFLNK: return Symlink(name, pfd, path, base, e);
      case AE_IFCHR:
      case AE_IFBLK:
      case AE_IFIFO: return Node(name, pfd, base, e, type);
      default: return Ok();  // sockets and unknown types carry no content worth keeping
    }
  }

  // Directory modes and times last (deepest first): a 0555 directory must not stop its own
  // children from being written, and writing children would change its mtime anyway.
  Status Finish() {
    for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) {
      UniqueFd fd(OpenBeneath(root_, it->path, O_RDONLY | O_DIRECTORY));
      if (!fd.valid()) continue;  // removed by a later whiteout in the same layer
      ::fchmod(fd.get(), it->mode);
      struct timespec ts[2] = {{it->mtime, 0}, {it->mtime, 0}};
      ::futimens(fd.get(), ts);
    }
    return Ok();
  }

  ExtractStats stats;

 private:
  struct PendingDir {
    std::string path;
    mode_t mode;
    time_t mtime;
  };

  // Every entry pays before anything is written, files their apparent size: a sparse or
  // compressed bomb counts in full on its header.
  Status Charge(const std::string& name, archive_entry* e) {
    if (!o_.budget) return Ok();
    bool file = archive_entry_filetype(e) == AE_IFREG && !archive_entry_hardlink(e);
    uint64_t size = file ? static_cast<uint64_t>(std::max<la_int64_t>(archive_entry_size(e), 0)) : 0;
    if (auto s = o_.budget->Charge(size); !s) return Refuse(name, "over the build's limit: " + s.error().msg);
    return Ok();
  }

  // Layouts (see ExtractOptions::layout): true to extract the entry, false to leave it out.
  Result<bool> AdmitToLayout(const std::string& name, const std::string& path, archive_entry* e) {
    mode_t type = archive_entry_filetype(e);
    bool plain = type == AE_IFDIR || type == AE_IFREG || archive_entry_hardlink(e);
    if (!plain && o_.skip_links && type == AE_IFLNK) return false;
    if (!plain) return Refuse(name, "only directories and regular files belong in an image layout");
    if (!seen_.insert(path).second) return Refuse(name, "appears twice in the image layout");
    return true;
  }

  static Error Refuse(const std::string& name, const std::string& why) {
    return MakeError("refused entry " + Quoted(name) + ": " + why, EPERM);
  }

  // Opens (creating missing directories when create) the directory at clean relative path.
  Result<UniqueFd> OpenDir(const std::string& dir, bool create) {
    UniqueFd fd(OpenBeneath(root_, dir, O_PATH | O_DIRECTORY));
    if (fd.valid()) return fd;
    if (errno != ENOENT || !create) return Why(errno, dir);
    // Walk from the root, creating what is missing; each step resolved beneath the last.
    UniqueFd cur(::dup(root_));
    std::string sofar;
    for (auto c : Split(dir)) {
      std::string comp(c);
      sofar += (sofar.empty() ? "" : "/") + comp;
      // A parent the archive never lists: 0755 and now, whatever the umask says.
      if (::mkdirat(cur.get(), comp.c_str(), 0755) == 0) dirs_.push_back({sofar, 0755, ::time(nullptr)});
      else if (errno != EEXIST) return ErrnoError("mkdir " + sofar);
      UniqueFd next(OpenBeneath(cur.get(), comp, O_PATH | O_DIRECTORY));
      if (!next.valid()) return Why(errno, sofar);
      cur = std::move(next);
    }
    return cur;
  }

  static Error Why(int err, const std::string& dir) {
    if (err == ELOOP) return MakeError("parent " + Quoted(dir) + " is a symlink; links are not followed", ELOOP);
    if (err == EXDEV) return MakeError("parent " + Quoted(dir) + " escapes the target", EXDEV);
    if (err == ENOTDIR) return MakeError("parent " + Quoted(dir) + " is not a directory", ENOTDIR);
    return ErrnoError("open parent " + Quoted(dir), err);
  }

  void Own(int fd, int pfd, const std::string& base, archive_entry* e) {
    if (!o_.same_owner) return;
    auto uid = static_cast<uid_t>(archive_entry_uid(e));
    auto gid = static_cast<gid_t>(archive_entry_gid(e));
    if (fd >= 0) ::fchown(fd, uid, gid);
    else ::fchownat(pfd, base.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW);
  }

  void Xattrs(int fd, archive_entry* e) {
    const char* key;
    const void* val;
    size_t size;
    archive_entry_xattr_reset(e);
    while (archive_entry_xattr_next(e, &key, &val, &size) == ARCHIVE_OK) {
      std::string_view k = key;
      // overlayfs reads these from lower layers: an image must not steer the overlay a
      // session puts over its rootfs (redirects, metacopy, opaque markers).
      if (k.starts_with("trusted.overlay.") || k.starts_with("user.overlay.")) continue;
      // File capabilities make a binary privileged like setuid does (H3).
      if (k == "security.capability" && !o_.keep_privileged) {
        ++stats.stripped;
        continue;
      }
      if (::fsetxattr(fd, key, val, size, 0) != 0) ++stats.skipped_xattrs;
    }
  }

  static void Times(int fd, archive_entry* e) {
    struct timespec ts[2] = {{archive_entry_mtime(e), archive_entry_mtime_nsec(e)},
                             {archive_entry_mtime(e), archive_entry_mtime_nsec(e)}};
    ::futimens(fd, ts);
  }

  // Times of an entry we hold no fd for (symlinks, nodes): never through a link.
  static void LinkTimes(int pfd, const std::string& base, archive_entry* e) {
    struct timespec ts[2] = {{archive_entry_mtime(e), archive_entry_mtime_nsec(e)},
                             {archive_entry_mtime(e), archive_entry_mtime_nsec(e)}};
    ::utimensat(pfd, base.c_str(), ts, AT_SYMLINK_NOFOLLOW);
  }

  Status Dir(const std::string& name, int pfd, const std::string& path, const std::string& base, archive_entry* e,
             bool existed) {
    if (!existed && ::mkdirat(pfd, base.c_str(), 0700) != 0) return ErrnoError("entry " + Quoted(name) + ": mkdir");
    UniqueFd fd(::openat(pfd, base.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return ErrnoError("entry " + Quoted(name) + ": open");
    Own(fd.get(), pfd, base, e);
    Xattrs(fd.get(), e);
    dirs_.push_back({path, static_cast<mode_t>(archive_entry_perm(e) & o_.perm_mask), archive_entry_mtime(e)});
    return Ok();
  }

  Status File(const std::string& name, int pfd, const std::string& base, archive* a, archive_entry* e) {
    UniqueFd fd(::openat(pfd, base.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd.valid()) return ErrnoError("entry " + Quoted(name) + ": create");
    const void* buf;
    size_t size;
    la_int64_t off;
    int r;
    // Block by block at the archive's offsets: sparse files stay sparse.
    la_int64_t end = archive_entry_size(e);
    while ((r = archive_read_data_block(a, &buf, &size, &off)) == ARCHIVE_OK) {
      // A sparse map reaching past the entry's size would write bytes the budget never saw.
      if (off < 0 || off > end || static_cast<la_int64_t>(size) > end - off)
        return Refuse(name, "data past the entry's size");
      const char* p = static_cast<const char*>(buf);
      while (size > 0) {
        ssize_t n = ::pwrite(fd.get(), p, size, off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return ErrnoError("entry " + Quoted(name) + ": write");
        p += n;
        off += n;
        size -= static_cast<size_t>(n);
      }
    }
    if (r != ARCHIVE_EOF) return MakeError("entry " + Quoted(name) + ": read: " + archive_error_string(a), EIO);
    if (::ftruncate(fd.get(), archive_entry_size(e)) != 0) return ErrnoError("entry " + Quoted(name) + ": truncate");
    Own(fd.get(), pfd, base, e);
    mode_t perm = archive_entry_perm(e) & o_.perm_mask;
    if (!o_.keep_privileged && (perm & (S_ISUID | S_ISGID))) {
      perm &= ~static_cast<mode_t>(S_ISUID | S_ISGID);  // an image's setuid-root binary is host root (H3)
      ++stats.stripped;
    }
    ::fchmod(fd.get(), perm);  // after chown, which clears setuid bits
    Xattrs(fd.get(), e);
    Times(fd.get(), e);
    return Ok();
  }

  Status Symlink(const std::string& name, int pfd, const std::string& path, const std::string& base,
                 archive_entry* e) {
    const char* t = archive_entry_symlink(e);
    std::string target = t ? t : "";
    if (target.empty()) return Refuse(name, "symlink without a target");
    if (!SymlinkStaysInside(path, target)) return Refuse(name, "symlink target " + Quoted(target) + " points outside the root");
    if (::symlinkat(target.c_str(), pfd, base.c_str()) != 0) return ErrnoError("entry " + Quoted(name) + ": symlink");
    Own(-1, pfd, base, e);
    LinkTimes(pfd, base, e);
    return Ok();
  }

  Status HardLink(const std::string& name, int pfd, const std::string& path, const std::string& base,
                  const char* raw_target) {
    std::string target_name = raw_target;
    auto clean = CleanEntryPath(target_name);
    if (!clean || clean->empty()) return Refuse(name, "hard link target " + Quoted(target_name) + " is outside the root");
    size_t slash = clean->rfind('/');
    std::string tdir = slash == std::string::npos ? "" : clean->substr(0, slash);
    std::string tbase = slash == std::string::npos ? *clean : clean->substr(slash + 1);
    auto tparent = OpenDir(tdir, false);
    if (!tparent) return Refuse(name, "hard link target " + Quoted(target_name) + ": " + tparent.error().msg);
    struct stat st {};
    if (::fstatat(tparent->get(), tbase.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode))
      return Refuse(name, "hard link target " + Quoted(target_name) + " is not a file extracted into the root");
    if (*clean == path) return Ok();
    TRY_CTX(fs::RemoveTreeAt(pfd, base), "entry " + Quoted(name));
    // flags 0: a link to a symlink links the symlink itself, never what it points at.
    if (::linkat(tparent->get(), tbase.c_str(), pfd, base.c_str(), 0) != 0)
      return ErrnoError("entry " + Quoted(name) + ": link to " + Quoted(target_name));
    created_.insert(path);
    return Ok();
  }

  Status Node(const std::string& name, int pfd, const std::string& base, archive_entry* e, mode_t type) {
    mode_t kind = type == AE_IFCHR ? S_IFCHR : type == AE_IFBLK ? S_IFBLK : S_IFIFO;
    // A 0666 disk or kmsg node in the cache is host root for whoever reaches it (H3); sessions
    // get their /dev from the runtime anyway. FIFOs grant nothing and stay.
    if (kind != S_IFIFO && !o_.keep_privileged) {
      ++stats.stripped;
      return Ok();
    }
    if (::mknodat(pfd, base.c_str(), kind | 0600, archive_entry_rdev(e)) != 0) {
      if (errno == EPERM && kind != S_IFIFO) {
        ++stats.skipped_devices;  // unprivileged: sessions get their /dev from the runtime
        return Ok();
      }
      return ErrnoError("entry " + Quoted(name) + ": mknod");
    }
    Own(-1, pfd, base, e);
    ::fchmodat(pfd, base.c_str(), archive_entry_perm(e) & o_.perm_mask, 0);  // a node, not a link: nothing followed
    LinkTimes(pfd, base, e);
    return Ok();
  }

  Status Whiteout(const std::string& name, const std::string& dir, const std::string& base) {
    auto parent = OpenDir(dir, false);
    if (!parent) {
      if (parent.error().err_no == ENOENT) return Ok();  // nothing below to hide
      return Refuse(name, parent.error().msg);
    }
    if (base == kOpaque) return Opaque(name, parent->get(), dir);
    std::string victim = base.substr(kWhPrefix.size());
    if (victim.empty() || victim == "." || victim == "..") return Refuse(name, "invalid whiteout");
    std::string vpath = dir.empty() ? victim : dir + "/" + victim;
    if (created_.contains(vpath)) return Ok();  // whiteouts hide lower layers, not this one
    return fs::RemoveTreeAt(parent->get(), victim);
  }

  // Empties dir of everything that did not come from this layer.
  Status Opaque(const std::string& name, int pfd, const std::string& dir) {
    UniqueFd fd(::openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    DIR* d = fd.valid() ? ::fdopendir(::dup(fd.get())) : nullptr;
    if (!d) return ErrnoError("entry " + Quoted(name) + ": open");
    std::vector<std::string> victims;
    while (dirent* de = ::readdir(d)) {
      std::string n = de->d_name;
      if (n == "." || n == "..") continue;
      if (!created_.contains(dir.empty() ? n : dir + "/" + n)) victims.push_back(n);
    }
    ::closedir(d);
    for (const auto& v : victims) TRY_CTX(fs::RemoveTreeAt(fd.get(), v), "entry " + Quoted(name));
    return Ok();
  }

  int root_;
  const ExtractOptions& o_;
  std::unordered_set<std::string> created_;  // paths this archive made
  std::unordered_set<std::string> seen_;     // layouts: every path named, to refuse a second
  std::vector<PendingDir> dirs_;
};

}  // namespace

Result<std::string> CleanEntryPath(std::string_view name) {
  if (!name.empty() && name[0] == '/') return MakeError("absolute path", EPERM);
  std::string out;
  for (auto c : Split(name)) {
    if (c == "..") return MakeError("\"..\" in path", EPERM);
    if (!out.empty()) out += '/';
    out += c;
  }
  return out;
}

bool SymlinkStaysInside(std::string_view link, std::string_view target) {
  // Start in the link's directory (or at the root for absolute targets) and walk the target.
  std::vector<std::string_view> at;
  if (target.empty() || target[0] != '/') {
    at = Split(link);
    if (!at.empty()) at.pop_back();
  }
  for (auto c : Split(target)) {
    if (c != "..") {
      at.push_back(c);
      continue;
    }
    if (at.empty()) return false;
    at.pop_back();
  }
  return true;
}

Result<ExtractStats> ExtractFd(int fd, const std::string& what, const std::filesystem::path& target,
                               const ExtractOptions& o) {
  UniqueFd root(::open(target.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return ErrnoError("open target " + target.string());
  std::string want;
  if (!o.digest.empty()) want = TRY_CTX(ParseDigest(o.digest), what);
  HashingReader reader;
  reader.fd = fd;
  reader.hashing = !want.empty();
  auto a = TRY(OpenArchive(&reader, what));
  struct stat st {};
  uint64_t total = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  Extractor x(root.get(), o);
  archive_entry* e;
  int r;
  while ((r = archive_read_next_header(a.get(), &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
    TRY_CTX(x.Entry(a.get(), e), what);
    ++x.stats.entries;
    if (o.progress) o.progress->Bytes(static_cast<uint64_t>(archive_filter_bytes(a.get(), -1)), total);
  }
  if (r != ARCHIVE_EOF) return MakeError(what + ": " + archive_error_string(a.get()), EIO);
  if (!want.empty()) {
    std::string got = TRY_CTX(reader.Finish(), what);
    if (got != want)
      return MakeError(what + ": digest mismatch while extracting: content is sha256:" + got + ", expected " + o.digest,
                       EBADMSG);
  }
  TRY(x.Finish());
  if (o.progress) o.progress->Bytes(total, total);
  return x.stats;
}

Result<ExtractStats> Extract(const std::filesystem::path& archive_path, const std::filesystem::path& target,
                             const ExtractOptions& o) {
  UniqueFd fd(::open(archive_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + archive_path.string());
  return ExtractFd(fd.get(), archive_path.filename().string(), target, o);
}

Result<std::string> ReadArchiveMember(const std::filesystem::path& archive_path, std::string_view member,
                                      size_t max_size) {
  std::string what = archive_path.string();
  UniqueFd fd(::open(archive_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + what);
  HashingReader reader;
  reader.fd = fd.get();
  auto a = TRY(OpenArchive(&reader, what));
  archive_entry* e;
  int r;
  std::optional<std::string> out;
  // To the end, not to the first hit: a second entry of that name is refused (see extract.h).
  while ((r = archive_read_next_header(a.get(), &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
    auto clean = CleanEntryPath(archive_entry_pathname(e) ? archive_entry_pathname(e) : "");
    if (!clean || *clean != member) continue;
    if (out) return MakeError(what + ": " + Quoted(member) + " appears twice", EINVAL);
    if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e))
      return MakeError(what + ": " + Quoted(member) + " is not a regular file", EINVAL);
    if (archive_entry_size(e) < 0 || static_cast<size_t>(archive_entry_size(e)) > max_size)
      return MakeError(what + ": " + Quoted(member) + " is too large", EFBIG);
    out.emplace(static_cast<size_t>(archive_entry_size(e)), '\0');
    if (archive_read_data(a.get(), out->data(), out->size()) != static_cast<la_ssize_t>(out->size()))
      return MakeError(what + ": read " + Quoted(member), EIO);
  }
  if (r != ARCHIVE_EOF) return MakeError(what + ": " + archive_error_string(a.get()), EIO);
  if (!out) return MakeError(what + ": no " + Quoted(member), ENOENT);
  return std::move(*out);
}

}  // namespace sandshim::rootfs
