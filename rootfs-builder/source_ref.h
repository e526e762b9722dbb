// What `rootfs build SOURCE` was asked to build from. Parsing is pure so it is unit-tested
// without any of the tools a source needs.
#pragma once

#include <string>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::rootfs {

enum class SourceKind { kBusybox, kDebootstrap, kDocker, kOci, kOciArchive, kTar };

struct SourceRef {
  SourceKind kind = SourceKind::kBusybox;
  std::string arg;  // suite, image reference or file/directory path (empty for busybox)
  std::string tag;  // oci:DIR:TAG only; empty means "the only manifest"
};

// Accepts "busybox", "debootstrap:SUITE", "docker:IMAGE", "oci:DIR[:TAG]",
// "oci-archive:FILE[:TAG]" and "tar:FILE". Paths are made absolute so a cache key does not
// depend on the caller's working directory.
Result<SourceRef> ParseSourceRef(std::string_view s);
std::string_view KindName(SourceKind k);
// The canonical text of a ref ("oci:/abs/dir:tag").
std::string ToString(const SourceRef& r);

}  // namespace sandshim::rootfs
