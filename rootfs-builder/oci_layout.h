// OCI image layout reading: index.json → (nested index →) manifest → config + layers.
// Parsing is pure (text in, structs out) so it is unit-tested without files; OpenImage ties
// it to a directory and verifies every blob's sha256 and size before anything uses it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "rootfs-builder/image_config.h"
#include "shim/core/result.h"

namespace sandshim::rootfs {

struct Descriptor {
  std::string media_type, digest;
  int64_t size = -1;
  std::string ref_name;      // annotations' org.opencontainers.image.ref.name (or containerd's)
  std::string os, arch;      // platform, for entries of an index
  std::string path;          // docker-archive only: the blob's file, relative and clean
};

struct Manifest {
  Descriptor config;
  std::vector<Descriptor> layers;
};

inline constexpr std::string_view kMediaIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr std::string_view kMediaManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr std::string_view kMediaDockerList = "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr std::string_view kMediaDockerManifest = "application/vnd.docker.distribution.manifest.v2+json";

Result<std::vector<Descriptor>> ParseIndex(std::string_view json_text);
// Picks the manifest (or nested index) for tag: the entry whose ref name is tag or ends in
// ":tag"; with no tag, the only entry. Ambiguity and absence are errors listing the choices.
Result<Descriptor> SelectByTag(const std::vector<Descriptor>& entries, std::string_view tag);
// In a nested (multi-platform) index: linux/amd64-like entry matching this host.
Result<Descriptor> SelectPlatform(const std::vector<Descriptor>& entries);
Result<Manifest> ParseManifest(std::string_view json_text);
// Whether a layer media type is one we can unpack (tar, gzip, zstd; OCI or docker names).
bool IsLayerMediaType(std::string_view mt);

struct Image {
  std::string manifest_digest;  // the identity of the image: the cache key of oci sources
  Manifest manifest;
  ImageConfig config;
  std::filesystem::path dir;
  std::filesystem::path Blob(const Descriptor& d) const;  // digest already validated
  std::string BlobRel(const Descriptor& d) const;          // the same, relative to dir (OpenBlob)
};

// Reads the top-level selection only (no blob reads beyond index.json): enough for a key.
Result<Descriptor> ResolveTop(const std::filesystem::path& layout, std::string_view tag);
// Full read with verification of the manifest and config blobs, each read once through one fd
// (blob.h) and parsed from the bytes that were verified; layers are verified by the caller
// (ApplyLayers) on the fd it extracts from.
Result<Image> OpenImage(const std::filesystem::path& layout, std::string_view tag);

}  // namespace sandshim::rootfs
