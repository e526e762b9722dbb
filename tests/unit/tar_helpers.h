// Writing test archives with libarchive's writer (the shipped binary only reads), shared by
// the rootfs unit tests.
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/fs.h"

namespace sandshim::testing {

struct TarEntry {
  std::string name;
  char type = 'f';  // f file, d dir, l symlink, h hard link, p fifo, c char device
  std::string data;  // file content, or link target
  mode_t mode = 0644;
  int64_t uid = 0;
  std::string xattr;  // "name=value", one
  dev_t rdev = makedev(1, 3);  // 'c' entries
};

enum class Filter { kNone, kGzip, kZstd };

inline void WriteTar(const std::filesystem::path& out, const std::vector<TarEntry>& entries, Filter f = Filter::kNone) {
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  if (f == Filter::kGzip) archive_write_add_filter_gzip(a);
  if (f == Filter::kZstd) archive_write_add_filter_zstd(a);
  REQUIRE(archive_write_open_filename(a, out.c_str()) == ARCHIVE_OK);
  for (const auto& t : entries) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, t.name.c_str());
    archive_entry_set_perm(e, t.type == 'd' && t.mode == 0644 ? 0755 : t.mode);
    archive_entry_set_mtime(e, 1700000000, 0);
    archive_entry_set_uid(e, t.uid);
    archive_entry_set_gid(e, t.uid);
    if (auto eq = t.xattr.find('='); eq != std::string::npos)
      archive_entry_xattr_add_entry(e, t.xattr.substr(0, eq).c_str(), t.xattr.data() + eq + 1, t.xattr.size() - eq - 1);
    switch (t.type) {
      case 'd': archive_entry_set_filetype(e, AE_IFDIR); break;
      case 'l':
        archive_entry_set_filetype(e, AE_IFLNK);
        archive_entry_set_symlink(e, t.data.c_str());
        break;
      case 'h':
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_hardlink(e, t.data.c_str());
        break;
      case 'p': archive_entry_set_filetype(e, AE_IFIFO); break;
      case 'c':
        archive_entry_set_filetype(e, AE_IFCHR);
        archive_entry_set_rdev(e, t.rdev);
        break;
      default:
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_size(e, static_cast<la_int64_t>(t.data.size()));
    }
    REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
    if (t.type == 'f') archive_write_data(a, t.data.data(), t.data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

inline std::string Read(const std::filesystem::path& p) { return fs::ReadFile(p).value_or("<missing>"); }

}  // namespace sandshim::testing
