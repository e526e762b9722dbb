#include "shim/policy/runs_command.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace sandshim::policy {
namespace {

struct CommandOptions {
  std::string_view short_letters;                 // in any single-dash cluster
  std::vector<std::string_view> long_names;        // by any unambiguous prefix (getopt_long, argp)
  bool old_style_first = false;                    // tar's `tar cIf ...`: letters in the first word
  std::string_view short_words;                    // ' '-separated whole words (zip's -TT, vim's -c)
  bool plus_words = false;                         // vim's +CMD
};

const std::map<std::string_view, CommandOptions>& Table() {
  // GNU tar 1.34, rsync 3.2, Info-ZIP zip 3.0, man-db 2.11, OpenSSH 9 scp, vim 9 (their manuals).
  static const std::map<std::string_view, CommandOptions> k = {
      {"tar", {"IF", {"to-command", "use-compress-program", "info-script", "new-volume-script", "rsh-command",
                      "rmt-command", "checkpoint-action"}, true}},
      {"rsync", {"e", {"rsh", "rsync-path"}}},
      {"zip", {"", {"unzip-command"}, false, "-TT"}},
      {"man", {"PH", {"pager", "html"}}},
      {"scp", {"SoF", {}}},
      {"sftp", {"SoFD", {}}},
  };
  return k;
}

bool IsVim(std::string_view n) { return n == "vim" || n == "vi" || n == "ex" || n == "view" || n == "nvim" || n == "rvim"; }

bool LongIs(const std::string& t, const std::vector<std::string_view>& names) {
  if (t.rfind("--", 0) != 0 || t.size() < 4) return false;
  auto eq = t.find('=');
  auto n = std::string_view(t).substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
  return std::any_of(names.begin(), names.end(), [&](std::string_view o) { return o.rfind(n, 0) == 0; });
}

}  // namespace

std::string RunsCommandOption(const std::vector<Word>& words) {
  if (words.empty()) return "";
  const auto& name = words[0].text;
  if (IsVim(name)) {  // -c CMD, --cmd CMD, +CMD, -S/-s/-u files of commands: an editor run by a script
    for (size_t k = 1; k < words.size(); ++k) {
      const auto& t = words[k].text;
      if (t == "--") break;
      if (words[k].dynamic || t.rfind('+', 0) == 0 || (t.size() > 1 && t[0] == '-'))
        return name + " with an option or command we do not model: " + words[k].raw;
    }
    return "";
  }
  auto it = Table().find(name);
  if (it == Table().end()) return "";
  const auto& o = it->second;
  for (size_t k = 1; k < words.size(); ++k) {
    const auto& t = words[k].text;
    if (t == "--") break;
    bool single = t.size() > 1 && t[0] == '-' && t[1] != '-';
    bool old_style = o.old_style_first && k == 1 && !t.empty() && t[0] != '-';
    bool runs = ((single || old_style) && !o.short_letters.empty() && t.find_first_of(o.short_letters, 1 - (old_style ? 1 : 0)) != std::string::npos) ||
                LongIs(t, o.long_names) || (!o.short_words.empty() && single && t.find(o.short_words) == 0);
    if (runs) return name + " runs a program given here: " + words[k].raw;
  }
  return "";
}

}  // namespace sandshim::policy
