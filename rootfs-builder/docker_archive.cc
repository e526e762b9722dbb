#include "rootfs-builder/docker_archive.h"

#include "bundle/spec.h"
#include "rootfs-builder/blob.h"
#include "rootfs-builder/digest.h"
#include "rootfs-builder/escape.h"
#include "rootfs-builder/extract.h"
#include "shim/core/fs.h"

namespace sandshim::rootfs {

namespace json = boost::json;

Result<Image> OpenDockerArchive(const std::filesystem::path& dir, std::string_view image_id) {
  auto v = TRY(bundle::ParseJson(TRY(ReadSmallBlob(dir, "manifest.json")), "docker archive manifest.json"));
  if (!v.is_array() || v.get_array().size() != 1 || !v.get_array()[0].is_object())
    return MakeError("docker archive manifest.json: want exactly one image", EINVAL);
  const auto& m = v.get_array()[0].get_object();
  Image img;
  img.dir = dir;
  img.manifest_digest = std::string(image_id);
  // Paths inside the archive are untrusted text: clean and relative, or refused.
  auto config_path = TRY_CTX(CleanEntryPath(bundle::GetString(m, "Config")), "docker archive Config");
  img.manifest.config = {"application/vnd.docker.container.image.v1+json", std::string(image_id), -1, "", "", "",
                         config_path};
  // Read once, verified and parsed from the same bytes.
  auto config_text = TRY_CTX(ReadSmallBlob(dir, config_path), "docker archive config");
  TRY_CTX(VerifyBytes(config_text, image_id), "docker archive config");
  img.config = TRY(ParseImageConfig(config_text));
  auto cv = TRY(bundle::ParseJson(config_text, "docker image config"));
  std::vector<std::string> diff_ids;
  if (const auto* rf = cv.is_object() ? bundle::GetObject(cv.get_object(), "rootfs") : nullptr)
    diff_ids = bundle::GetStrings(*rf, "diff_ids");
  auto layers = bundle::GetStrings(m, "Layers");
  if (layers.size() != diff_ids.size())
    return MakeError("docker archive: " + std::to_string(layers.size()) + " layers but " +
                         std::to_string(diff_ids.size()) + " diff_ids in the config",
                     EINVAL);
  for (size_t i = 0; i < layers.size(); ++i) {
    TRY_CTX(ParseDigest(diff_ids[i]), "docker archive diff_id");
    auto path = TRY_CTX(CleanEntryPath(layers[i]), "docker archive layer " + Quoted(layers[i]));
    img.manifest.layers.push_back({"application/vnd.docker.image.rootfs.diff.tar", diff_ids[i], -1, "", "", "", path});
  }
  return img;
}

}  // namespace sandshim::rootfs
