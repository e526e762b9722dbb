#include "shim/policy/packages.h"

#include <algorithm>
#include <cctype>

namespace sandshim::policy {

static std::string Manager(std::string_view name, const std::vector<Word>& argv, size_t& verb) {
  verb = 1;
  if (name == "pip" || name == "pip3") return "pip";
  if (name.rfind("python", 0) == 0 && argv.size() > 2 && argv[1].text == "-m" && (argv[2].text == "pip" || argv[2].text == "pip3")) {
    verb = 3;
    return "pip";
  }
  if (name == "uv" && argv.size() > 1 && argv[1].text == "pip") {
    verb = 2;
    return "pip";
  }
  if (name == "npm" || name == "pnpm" || name == "yarn") return "npm";
  if (name == "apt" || name == "apt-get" || name == "aptitude") return "apt";
  if (name == "gem") return "gem";
  if (name == "cargo") return "cargo";
  return "";
}

std::string PackageName(std::string_view manager, std::string_view spec) {
  std::string s(spec);
  if (manager == "npm") {
    auto at = s.find('@', 1);  // @scope/name@version
    if (at != std::string::npos) s.resize(at);
  } else {
    auto cut = s.find_first_of(manager == "apt" ? "=:" : "[=<>!~;@ ");
    if (cut != std::string::npos) s.resize(cut);
  }
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (manager == "pip") std::replace_if(s.begin(), s.end(), [](char c) { return c == '_' || c == '.'; }, '-');
  return s;
}

std::optional<Install> InstallOf(std::string_view name, const std::vector<Word>& argv) {
  size_t verb = 1;
  Install in{.manager = Manager(name, argv, verb)};
  if (in.manager.empty()) return std::nullopt;
  // The verb: the first word that is not an option (npm --global install x).
  while (verb < argv.size() && !argv[verb].dynamic && argv[verb].text.rfind("-", 0) == 0) ++verb;
  if (verb >= argv.size()) return std::nullopt;
  const auto& v = argv[verb];
  if (v.dynamic) return Install{.manager = in.manager, .unknown_packages = true};
  static const std::vector<std::string> kVerbs = {"install", "i", "add", "ci", "reinstall"};
  if (std::find(kVerbs.begin(), kVerbs.end(), v.text) == kVerbs.end()) return std::nullopt;
  for (size_t i = verb + 1; i < argv.size(); ++i) {
    const auto& w = argv[i];
    if (w.dynamic) { in.unknown_packages = true; continue; }
    if (w.text == "-r" || w.text == "--requirement" || w.text == "-c" || w.text == "--constraint" || w.text == "-e" ||
        w.text.rfind("--requirement=", 0) == 0 || w.text.rfind("-r", 0) == 0) {
      in.unknown_packages = true;  // the names are in a file
      if (w.text == "-r" || w.text == "-c" || w.text == "-e" || w.text == "--requirement" || w.text == "--constraint") ++i;
      continue;
    }
    if (w.text.rfind("-", 0) == 0) continue;
    // A local path or URL names no registry package we could check.
    if (w.text.find('/') != std::string::npos && w.text.front() != '@') { in.unknown_packages = true; continue; }
    in.packages.push_back(PackageName(in.manager, w.text));
  }
  // npm ci, npm install, pip install -e .: the names are in package.json / a lock file.
  if (in.packages.empty() && in.manager != "apt") in.unknown_packages = true;
  return in;
}

}  // namespace sandshim::policy
