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

// tar -I / --use-compress-program with a compressor known to run nothing else, given alone or
// with options (`-I zstd`, `-I 'xz -T0'`, `--use-compress-program=pigz`): what people write
// for archives tar has no letter for. tar splits the value into words and execs it, no shell.
bool KnownCompressor(std::string_view v) {
  static constexpr std::string_view kNames[] = {"zstd", "xz", "gzip", "bzip2", "lz4", "lzip", "lzma", "lzop",
                                                "pigz", "pbzip2", "pixz", "plzip", "unpigz", "brotli", "unzstd"};
  auto space = v.find(' ');
  auto name = v.substr(0, space);
  if (std::find(std::begin(kNames), std::end(kNames), name) == std::end(kNames)) return false;
  for (size_t at = space; at != std::string_view::npos && at < v.size();) {  // the rest: options only
    auto start = v.find_first_not_of(' ', at);
    if (start == std::string_view::npos) break;
    auto end = v.find(' ', start);
    auto w = v.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (w[0] != '-' || w.find_first_not_of("-=0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != std::string_view::npos)
      return false;
    at = end;
  }
  return true;
}

// The compressor tar's word k names, if it is -I/--use-compress-program with a known one;
// `skip` is set to the words it takes.
bool TarKnownCompressor(const std::vector<Word>& words, size_t k, size_t& skip) {
  const auto& t = words[k].text;
  skip = 0;
  auto next = [&]() { skip = 1; return k + 1 < words.size() && !words[k + 1].dynamic && KnownCompressor(words[k + 1].text); };
  if (words[k].dynamic) return false;
  if (t == "-I") return next();
  if (t.rfind("-I", 0) == 0 && t.size() > 2) return KnownCompressor(std::string_view(t).substr(2));
  if (t.rfind("--use-compress-program", 0) == 0 || (t.rfind("--use-c", 0) == 0 && t.find('=') == std::string::npos && std::string_view("--use-compress-program").rfind(t, 0) == 0)) {
    auto eq = t.find('=');
    return eq == std::string::npos ? next() : KnownCompressor(std::string_view(t).substr(eq + 1));
  }
  return false;
}

bool LongIs(const std::string& t, const std::vector<std::string_view>& names) {
  if (t.rfind("--", 0) != 0 || t.size() < 4) return false;
  auto eq = t.find('=');
  auto n = std::string_view(t).substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
  return std::any_of(names.begin(), names.end(), [&](std::string_view o) { return o.rfind(n, 0) == 0; });
}

// Database shells whose command words reach a shell: sqlite3's dot commands (`.shell`,
// `.system`, `.output |cmd`, `.read`: any word starting with `.`, and -cmd/-init), psql's and
// mysql's backslash commands (`\! cmd`, `\o |cmd`; mysql's `system`) in -c/-e/--command/
// --execute, and a script from -f/--file/-init. What they read from stdin is beyond this.
std::string DatabaseShellEscape(const std::string& name, const std::vector<Word>& words) {
  bool sqlite = name == "sqlite3" || name == "sqlite";
  bool sql = name == "psql" || name == "mysql" || name == "mariadb";
  if (!sqlite && !sql) return "";
  for (size_t k = 1; k < words.size(); ++k) {
    const auto& t = words[k].text;
    if (words[k].dynamic) return name + " with a word known only at run time: " + words[k].raw;
    if (sqlite && (t[0] == '.' || t.find("-cmd") == 0 || t.find("-init") == 0 || t.find("--cmd") == 0 || t.find("--init") == 0))
      return name + " with a dot command or a script: " + words[k].raw;
    if (sql && (t.find('\\') != std::string::npos || t.find("system") != std::string::npos || t == "-f" ||
                t.rfind("--file", 0) == 0 || t.rfind("-f", 0) == 0 || t.rfind("--init-command", 0) == 0 || t.rfind("--pager", 0) == 0))
      return name + " with a command that may reach a shell or a script: " + words[k].raw;
  }
  return "";
}

}  // namespace

std::string RunsCommandOption(const std::vector<Word>& words) {
  if (words.empty()) return "";
  const auto& name = words[0].text;
  if (auto why = DatabaseShellEscape(name, words); !why.empty()) return why;
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
    if (size_t skip; name == "tar" && TarKnownCompressor(words, k, skip)) { k += skip; continue; }
    bool single = t.size() > 1 && t[0] == '-' && t[1] != '-';
    bool old_style = o.old_style_first && k == 1 && !t.empty() && t[0] != '-';
    bool runs = ((single || old_style) && !o.short_letters.empty() && t.find_first_of(o.short_letters, 1 - (old_style ? 1 : 0)) != std::string::npos) ||
                LongIs(t, o.long_names) || (!o.short_words.empty() && single && t.find(o.short_words) == 0);
    if (runs) return name + " runs a program given here: " + words[k].raw;
  }
  return "";
}

}  // namespace sandshim::policy
