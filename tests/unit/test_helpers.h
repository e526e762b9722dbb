// Shared bits for unit tests: temp directories that clean up after themselves.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace sandshim::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sandshim-unit-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string FakeRunsc() { return std::string(SANDSHIM_SOURCE_DIR) + "/tests/fakes/fake-runsc.sh"; }

}  // namespace sandshim::testing
