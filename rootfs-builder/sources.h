// The builders of each source kind. Each fills an empty directory `rootfs` (work files go in
// `work`, removed afterwards) and reports the image config, and each names the identity of
// its content, from which the cache key is made.
#pragma once

#include <filesystem>
#include <string>

#include "rootfs-builder/oci_layout.h"
#include "rootfs-builder/rootfs.h"

namespace sandshim::rootfs {

struct BuildDirs {
  std::filesystem::path rootfs, work;
  std::string identity;  // what *Identity returned for this build
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

// Applies an opened image's layers in order, verifying each layer's digest before use.
Status ApplyLayers(const Image& img, const std::filesystem::path& rootfs, Progress* progress);
// The first Debian mirror in apt's sources (deb822 .sources or one-line .list text); pure.
std::string MirrorFromAptSources(const std::string& text);

}  // namespace sandshim::rootfs
