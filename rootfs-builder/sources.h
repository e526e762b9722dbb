// The builders of each source kind. Each fills an empty directory `rootfs` (work files go in
// `work`, removed afterwards) and reports the image config, and each names the identity of
// its content, from which the cache key is made.
#pragma once

#include <filesystem>
#include <string>

#include "rootfs-builder/extract.h"
#include "rootfs-builder/limits.h"
#include "rootfs-builder/oci_layout.h"
#include "rootfs-builder/rootfs.h"

namespace sandshim::rootfs {

struct BuildDirs {
  std::filesystem::path rootfs, work;
  std::string identity;      // what *Identity returned for this build
  Budget* budget = nullptr;  // the build's byte and entry budget, shared by all its archives
};

// Identity: what changes exactly when the content would (see docs/ARCHITECTURE.md).
Result<std::string> BusyboxIdentity(const BuildOptions& o);
Result<std::string> DebootstrapIdentity(const SourceRef& r, const BuildOptions& o);
Result<std::string> DockerIdentity(const SourceRef& r, const BuildOptions& o);
Result<std::string> OciIdentity(const SourceRef& r);
Result<std::string> OciArchiveIdentity(const SourceRef& r);
Result<std::string> TarIdentity(const SourceRef& r);

Result<ImageConfig> BuildBusybox(const BuildOptions& o, const BuildDirs& d);
Result<ImageConfig> BuildDebootstrap(const SourceRef& r, const BuildOptions& o, const BuildDirs& d);
Result<ImageConfig> BuildDocker(const SourceRef& r, const BuildOptions& o, const BuildDirs& d);
Result<ImageConfig> BuildOci(const SourceRef& r, const BuildOptions& o, const BuildDirs& d);
Result<ImageConfig> BuildOciArchive(const SourceRef& r, const BuildOptions& o, const BuildDirs& d);
Result<ImageConfig> BuildTar(const SourceRef& r, const BuildOptions& o, const BuildDirs& d);

// How this build extracts a root filesystem (privileged bits per o.keep_privileged) and an
// image layout (nothing but directories and regular files, each once), both under d.budget.
ExtractOptions RootfsExtract(const BuildOptions& o, const BuildDirs& d);
ExtractOptions LayoutExtract(const BuildOptions& o, const BuildDirs& d);
// Applies an opened image's layers in order (x: RootfsExtract), each blob opened once beneath
// the layout and its digest checked on that fd before and while it is extracted.
Status ApplyLayers(const Image& img, const std::filesystem::path& rootfs, const ExtractOptions& x);
// The key was made from `identity`; the image a build opened must be that one (review H4).
Status CheckIdentity(const Image& img, const BuildDirs& d, const std::string& what);
// The first Debian mirror in apt's sources (deb822 .sources or one-line .list text); pure.
std::string MirrorFromAptSources(const std::string& text);

}  // namespace sandshim::rootfs
