// The docker-archive format `docker save` wrote before Docker 25 (and still writes next to
// the OCI layout): manifest.json names a config file and layer tars by path. Nothing there
// is content-addressed by name, so trust comes from the image id instead: the config must
// hash to the id the daemon reported, and each layer tar to its diff_id in that config.
#pragma once

#include <filesystem>
#include <string_view>

#include "rootfs-builder/oci_layout.h"

namespace sandshim::rootfs {

// dir: the unpacked archive; image_id: "sha256:…" (the config's digest). Layers come back as
// descriptors whose digest is the diff_id and whose path is the tar, so ApplyLayers verifies
// each before extracting it.
Result<Image> OpenDockerArchive(const std::filesystem::path& dir, std::string_view image_id);

}  // namespace sandshim::rootfs
