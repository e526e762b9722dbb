#include "shim/session/store/installed_binary.h"

#include <sys/stat.h>

#include <cstdint>
#include <cstdio>

#include "shim/core/fs.h"

namespace sandshim::session {

std::string ContentHash(std::string_view bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(h));
  return out;
}

std::string InstalledBinaryName(const std::string& name, std::string_view bytes) {
  return name + "-" + ContentHash(bytes);
}

Result<std::filesystem::path> InstallBinary(const std::filesystem::path& dir, const std::string& name,
                                            std::string_view bytes, const std::string& what) {
  if (bytes.empty()) return MakeError("this sandshim was built without its " + what, ENOEXEC);
  auto path = dir / InstalledBinaryName(name, bytes);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && static_cast<size_t>(st.st_size) == bytes.size()) return path;
  TRY_CTX(fs::WriteFileAtomic(path, bytes, 0755), what);
  return path;
}

}  // namespace sandshim::session
