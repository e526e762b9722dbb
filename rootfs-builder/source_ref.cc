#include "rootfs-builder/source_ref.h"

#include <filesystem>

namespace sandshim::rootfs {
namespace {

// OCI's tag grammar: [A-Za-z0-9_][A-Za-z0-9._-]{0,127}. A suffix after the last ':' that
// matches it is a tag; anything else (a '/' in it, say) stays part of the path.
bool IsTag(std::string_view t) {
  if (t.empty() || t.size() > 128) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (i > 0 && (c == '.' || c == '-'));
    if (!ok) return false;
  }
  return true;
}

bool IsSuite(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') return false;
  return s[0] != '-' && s != "." && s != "..";
}

// Debian package names: lowercase letters, digits, + - . (policy 5.6.1), listed with commas.
bool IsPackageList(std::string_view s) {
  if (s.empty()) return false;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = std::min(s.find(',', start), s.size());
    auto name = s.substr(start, end - start);
    if (name.size() < 2 || !std::isalnum(static_cast<unsigned char>(name[0]))) return false;
    for (char c : name)
      if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '+' ||
            c == '-' || c == '.'))
        return false;
    start = end + 1;
  }
  return true;
}

std::string Absolute(std::string_view p) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(std::filesystem::path(p), ec);
  return ec ? std::string(p) : abs.lexically_normal().string();
}

}  // namespace

std::string_view KindName(SourceKind k) {
  switch (k) {
    case SourceKind::kBusybox: return "busybox";
    case SourceKind::kDebootstrap: return "debootstrap";
    case SourceKind::kDocker: return "docker";
    case SourceKind::kOci: return "oci";
    case SourceKind::kOciArchive: return "oci-archive";
    case SourceKind::kTar: return "tar";
  }
  return "?";
}

Result<SourceRef> ParseSourceRef(std::string_view s) {
  auto bad = [&](std::string why) {
    return MakeError("source \"" + std::string(s) + "\": " + why +
                         " (want busybox, debootstrap:SUITE[+PKG,...], docker:IMAGE, oci:DIR[:TAG], oci-archive:FILE, tar:FILE)",
                     EINVAL);
  };
  if (s == "busybox") return SourceRef{SourceKind::kBusybox, "", ""};
  size_t colon = s.find(':');
  if (colon == std::string_view::npos) return bad("unknown source kind");
  std::string_view kind = s.substr(0, colon), rest = s.substr(colon + 1);
  if (rest.empty()) return bad("nothing after \"" + std::string(kind) + ":\"");
  SourceRef r;
  if (kind == "debootstrap") {
    // SUITE[+PKG,PKG...]: the extra packages are part of the reference, so of the cache key.
    size_t plus = rest.find('+');
    if (!IsSuite(rest.substr(0, plus))) return bad("not a suite name");
    if (plus != std::string_view::npos && !IsPackageList(rest.substr(plus + 1)))
      return bad("not a comma-separated list of Debian package names after '+'");
    r.kind = SourceKind::kDebootstrap;
    r.arg = rest;
  } else if (kind == "docker") {
    // The docker CLI validates the reference itself; we only keep it from reading as a flag.
    if (rest[0] == '-' || rest.find_first_of(" \t\n") != std::string_view::npos) return bad("not an image reference");
    r.kind = SourceKind::kDocker;
    r.arg = rest;
  } else if (kind == "oci" || kind == "oci-archive") {
    r.kind = kind == "oci" ? SourceKind::kOci : SourceKind::kOciArchive;
    size_t last = rest.rfind(':');
    if (last != std::string_view::npos && IsTag(rest.substr(last + 1))) {
      r.tag = rest.substr(last + 1);
      rest = rest.substr(0, last);
      if (rest.empty()) return bad("no path before the tag");
    }
    r.arg = Absolute(rest);
  } else if (kind == "tar") {
    r.kind = SourceKind::kTar;
    r.arg = Absolute(rest);
  } else {
    return bad("unknown source kind \"" + std::string(kind) + "\"");
  }
  return r;
}

std::string ToString(const SourceRef& r) {
  std::string out(KindName(r.kind));
  if (r.kind == SourceKind::kBusybox) return out;
  out += ":" + r.arg;
  if (!r.tag.empty()) out += ":" + r.tag;
  return out;
}

}  // namespace sandshim::rootfs
