#include "rootfs-builder/oci_layout.h"

#include <sys/utsname.h>

#include "bundle/spec.h"
#include "rootfs-builder/blob.h"
#include "rootfs-builder/digest.h"
#include "rootfs-builder/escape.h"
#include "shim/core/fs.h"

namespace sandshim::rootfs {

namespace json = boost::json;
using bundle::GetArray;
using bundle::GetObject;
using bundle::GetString;

namespace {

Result<Descriptor> ParseDescriptor(const json::value& v, std::string_view what) {
  if (!v.is_object()) return MakeError(std::string(what) + ": descriptor is not an object", EINVAL);
  const auto& o = v.get_object();
  Descriptor d;
  d.media_type = GetString(o, "mediaType");
  d.digest = GetString(o, "digest");
  TRY_CTX(ParseDigest(d.digest), std::string(what));
  if (const auto* s = o.if_contains("size"); s && s->is_int64()) d.size = s->as_int64();
  if (const auto* a = GetObject(o, "annotations")) {
    d.ref_name = GetString(*a, "org.opencontainers.image.ref.name");
    if (d.ref_name.empty()) d.ref_name = GetString(*a, "io.containerd.image.name");
  }
  if (const auto* p = GetObject(o, "platform")) {
    d.os = GetString(*p, "os");
    d.arch = GetString(*p, "architecture");
  }
  return d;
}

Result<json::object> ParseObject(std::string_view text, std::string_view what) {
  auto v = TRY(bundle::ParseJson(text, what));
  if (!v.is_object()) return MakeError(std::string(what) + ": not a JSON object", EINVAL);
  return std::move(v.get_object());
}

std::string HostArch() {
  struct utsname u {};
  ::uname(&u);
  std::string m = u.machine;
  if (m == "x86_64") return "amd64";
  if (m == "aarch64") return "arm64";
  return m;
}

bool IsIndex(std::string_view mt) { return mt == kMediaIndex || mt == kMediaDockerList; }

}  // namespace

Result<std::vector<Descriptor>> ParseIndex(std::string_view json_text) {
  auto o = TRY(ParseObject(json_text, "index.json"));
  const json::array* m = GetArray(o, "manifests");
  if (!m) return MakeError("index.json: no manifests", EINVAL);
  std::vector<Descriptor> out;
  for (const auto& e : *m) out.push_back(TRY(ParseDescriptor(e, "index.json")));
  return out;
}

Result<Descriptor> SelectByTag(const std::vector<Descriptor>& entries, std::string_view tag) {
  std::vector<const Descriptor*> hits;
  std::string names;
  for (const auto& d : entries) {
    names += (names.empty() ? "" : ", ") + (d.ref_name.empty() ? d.digest : Quoted(d.ref_name));
    if (tag.empty()) {
      hits.push_back(&d);
      continue;
    }
    std::string_view r = d.ref_name;
    bool match = r == tag || (r.size() > tag.size() && r.ends_with(tag) && r[r.size() - tag.size() - 1] == ':');
    if (match) hits.push_back(&d);
  }
  if (hits.size() == 1) return *hits[0];
  if (hits.empty())
    return MakeError(entries.empty() ? "index.json lists no manifests"
                                     : "no manifest tagged \"" + std::string(tag) + "\" (have: " + names + ")",
                     ENOENT);
  // Several entries but all the same content (docker save lists one per tag): any will do.
  bool same = true;
  for (auto* h : hits) same = same && h->digest == hits[0]->digest;
  if (same) return *hits[0];
  return MakeError("several manifests, pick one with :TAG (have: " + names + ")", EINVAL);
}

Result<Descriptor> SelectPlatform(const std::vector<Descriptor>& entries) {
  std::string arch = HostArch();
  for (const auto& d : entries)
    if ((d.os.empty() || d.os == "linux") && (d.arch.empty() || d.arch == arch)) return d;
  return MakeError("no manifest for linux/" + arch + " in the image index", ENOENT);
}

Result<Manifest> ParseManifest(std::string_view json_text) {
  auto o = TRY(ParseObject(json_text, "manifest"));
  Manifest m;
  const json::value* cfg = o.if_contains("config");
  if (!cfg) return MakeError("manifest: no config", EINVAL);
  m.config = TRY(ParseDescriptor(*cfg, "manifest config"));
  if (const json::array* ls = GetArray(o, "layers"))
    for (const auto& l : *ls) {
      Descriptor d = TRY(ParseDescriptor(l, "manifest layer"));
      if (!IsLayerMediaType(d.media_type))
        return MakeError("manifest layer " + d.digest + ": unsupported media type " + Quoted(d.media_type), ENOTSUP);
      m.layers.push_back(std::move(d));
    }
  return m;
}

bool IsLayerMediaType(std::string_view mt) {
  static constexpr std::string_view kOk[] = {
      "application/vnd.oci.image.layer.v1.tar",
      "application/vnd.oci.image.layer.v1.tar+gzip",
      "application/vnd.oci.image.layer.v1.tar+zstd",
      "application/vnd.docker.image.rootfs.diff.tar",
      "application/vnd.docker.image.rootfs.diff.tar.gzip",
      "application/vnd.docker.image.rootfs.diff.tar.zstd",
  };
  for (auto k : kOk)
    if (mt == k) return true;
  return false;
}

std::filesystem::path Image::Blob(const Descriptor& d) const { return dir / BlobRel(d); }

std::string Image::BlobRel(const Descriptor& d) const {
  if (!d.path.empty()) return d.path;
  return "blobs/sha256/" + d.digest.substr(7);
}

Result<Descriptor> ResolveTop(const std::filesystem::path& layout, std::string_view tag) {
  auto text = TRY_CTX(ReadSmallBlob(layout, "index.json"), "OCI layout " + layout.string());
  auto entries = TRY_CTX(ParseIndex(text), "OCI layout " + layout.string());
  return TRY_CTX(SelectByTag(entries, tag), "OCI layout " + layout.string());
}

// Reads a blob only after its digest checks out: the blob's bytes are untrusted until then.
static Result<std::string> ReadVerified(const Image& img, const Descriptor& d) {
  auto text = TRY(ReadSmallBlob(img.dir, img.BlobRel(d)));
  TRY(VerifyBytes(text, d.digest, d.size));
  return text;
}

Result<Image> OpenImage(const std::filesystem::path& layout, std::string_view tag) {
  Image img;
  img.dir = layout;
  Descriptor d = TRY(ResolveTop(layout, tag));
  img.manifest_digest = d.digest;
  // Follow nested indexes (multi-platform images) a bounded number of times.
  for (int depth = 0; IsIndex(d.media_type); ++depth) {
    if (depth > 4) return MakeError("image index nested too deep", ELOOP);
    auto text = TRY(ReadVerified(img, d));
    d = TRY(SelectPlatform(TRY(ParseIndex(text))));
  }
  if (d.media_type != kMediaManifest && d.media_type != kMediaDockerManifest && !d.media_type.empty())
    return MakeError("unsupported manifest media type " + Quoted(d.media_type), ENOTSUP);
  img.manifest = TRY(ParseManifest(TRY(ReadVerified(img, d))));
  img.config = TRY(ParseImageConfig(TRY(ReadVerified(img, img.manifest.config))));
  return img;
}

}  // namespace sandshim::rootfs
