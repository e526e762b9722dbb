#include "shim/session/files_host_tar.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

#include "shim/core/unique_fd.h"

namespace sandshim::session {
namespace {

using Writer = std::unique_ptr<struct archive, decltype(&archive_write_free)>;
using Entry = std::unique_ptr<struct archive_entry, decltype(&archive_entry_free)>;

Error ArchiveError(struct archive* a, const std::string& what) {
  const char* m = archive_error_string(a);
  return MakeError("tar " + what + ": " + (m ? m : "write failed"), EIO);
}

Status WriteData(struct archive* a, const std::filesystem::path& file, const std::string& name) {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return MakeError("open " + file.string(), errno);
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) return MakeError("read " + file.string(), errno);
    if (n == 0) return {};
    if (archive_write_data(a, buf, static_cast<size_t>(n)) != n) return ArchiveError(a, name);
  }
}

// One entry; sockets have no place in a tar and are left out.
Status WriteOne(struct archive* a, const std::filesystem::path& file, const std::string& name) {
  struct stat st;
  if (::lstat(file.c_str(), &st) != 0) return MakeError("lstat " + file.string(), errno);
  if (S_ISSOCK(st.st_mode)) return {};
  Entry e(archive_entry_new(), &archive_entry_free);
  archive_entry_copy_stat(e.get(), &st);
  archive_entry_set_pathname(e.get(), name.c_str());
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(file, ec);
    if (ec) return MakeError("readlink " + file.string(), ec.value());
    archive_entry_set_symlink(e.get(), target.c_str());
  }
  if (!S_ISREG(st.st_mode)) archive_entry_set_size(e.get(), 0);
  if (archive_write_header(a, e.get()) != ARCHIVE_OK) return ArchiveError(a, name);
  return S_ISREG(st.st_mode) ? WriteData(a, file, name) : Status{};
}

}  // namespace

Status WriteHostTar(const std::filesystem::path& src, const std::string& top, int fd) {
  Writer a(archive_write_new(), &archive_write_free);
  archive_write_set_format_gnutar(a.get());
  archive_write_set_bytes_per_block(a.get(), 10240);
  if (archive_write_open_fd(a.get(), fd) != ARCHIVE_OK) return ArchiveError(a.get(), "open");
  const std::string root = "./" + top;
  TRY(WriteOne(a.get(), src, root));
  std::error_code ec;
  if (std::filesystem::is_directory(std::filesystem::symlink_status(src, ec))) {
    // Never into a directory symlink (the default); a tree changing under us is the caller's.
    for (std::filesystem::recursive_directory_iterator it(src, ec), end; !ec && it != end; it.increment(ec))
      TRY(WriteOne(a.get(), it->path(), root + "/" + it->path().lexically_relative(src).string()));
    if (ec) return MakeError("walk " + src.string(), ec.value());
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) return ArchiveError(a.get(), "close");
  return {};
}

}  // namespace sandshim::session
