// Install commands and the packages they name, for sources.json's blocked packages:
// `pip install X`, `python3 -m pip install X`, `npm i X`, `yarn add X`, `apt-get install X`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shim/policy/shell_parse.h"

namespace sandshim::policy {

struct Install {
  std::string manager;              // "pip", "npm", "apt", "gem", "cargo"
  std::vector<std::string> packages;  // names without versions or extras, lower case
  bool unknown_packages = false;      // -r requirements.txt, a variable: cannot be listed
};

// nullopt: not an install command. name is argv[0] already normalised.
std::optional<Install> InstallOf(std::string_view name, const std::vector<Word>& argv);
// "Requests_Toolbelt[socks]>=1.0" -> "requests-toolbelt"; "@scope/pkg@1.2" -> "@scope/pkg".
std::string PackageName(std::string_view manager, std::string_view spec);

}  // namespace sandshim::policy
