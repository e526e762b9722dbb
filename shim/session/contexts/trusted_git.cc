#include "shim/session/contexts/trusted_git.h"

namespace sandshim::session {
namespace {

// Command-line scope: read after the system, global, local and worktree files, so a
// repository's config cannot override these (a later `git -c` by the platform itself can).
// Each names a command git would run, or a signing program.
constexpr std::pair<const char*, const char*> kGitOverrides[] = {
    {"core.hooksPath", "/dev/null"},  // no hooks: /dev/null/<hook> never exists
    {"core.fsmonitor", "false"},
    {"core.sshCommand", "ssh"},
    {"core.askPass", ""},
    {"core.alternateRefsCommand", "true"},
    {"credential.helper", ""},  // empty: resets the helper list (URL-scoped ones too)
    {"diff.external", ""},
    {"commit.gpgSign", "false"},
    {"tag.gpgSign", "false"},
    {"tag.forceSignAnnotated", "false"},
    {"push.gpgSign", "false"},
    {"gpg.program", "gpg"},
    {"gpg.openpgp.program", "gpg"},
    {"gpg.x509.program", "gpgsm"},
    {"gpg.ssh.program", "ssh-keygen"},
    {"submodule.recurse", "false"},
    // Transports: none but these (not ext::, a command, nor fd::). file only "user": git's own
    // guard (CVE-2022-39253) refuses it where git sets GIT_PROTOCOL_FROM_USER=0 itself, a
    // submodule's URL from .gitmodules; GIT_ALLOW_PROTOCOL would have beaten it (always).
    {"protocol.allow", "never"},
    {"protocol.https.allow", "always"},
    {"protocol.http.allow", "always"},
    {"protocol.ssh.allow", "always"},
    {"protocol.git.allow", "always"},
    {"protocol.file.allow", "user"},
};

// Keys a repository's own config may set (git's canonical spelling: section and name lower
// case, subsection as written): plain data. Everything else is refused, which covers
// aliases, filter/diff/merge drivers, remote.*.uploadpack/receivepack/proxy, url rewrites,
// includes, http.*, credential.*, pager.*, core.*Command and whatever git adds later.
constexpr const char* kAllowedLocalKeys =
    "core.repositoryformatversion|core.filemode|core.bare|core.logallrefupdates|core.ignorecase|"
    "core.precomposeunicode|core.symlinks|core.sharedrepository|core.autocrlf|core.eol|core.safecrlf|"
    "core.quotepath|core.abbrev|core.compression|core.bigfilethreshold|core.checkstat|core.trustctime|"
    "core.untrackedcache|core.splitindex|core.commitgraph|core.multipackindex|core.sparsecheckout|"
    "core.sparsecheckoutcone|core.protecthfs|core.protectntfs|core.warnambiguousrefs|"
    "extensions.*|init.defaultbranch|user.name|user.email|user.useconfigonly|"
    "remote.*.url|remote.*.pushurl|remote.*.fetch|remote.*.push|remote.*.tagopt|remote.*.prune|"
    "remote.*.mirror|remote.*.promisor|remote.*.partialclonefilter|remote.*.skipdefaultupdate|"
    "branch.*.remote|branch.*.merge|branch.*.rebase|branch.*.pushremote|branch.*.description|"
    "submodule.*.url|submodule.*.active|submodule.*.branch|"
    "gc.auto|gc.autopacklimit|gc.autodetach|pack.threads|index.version|index.threads|"
    "fetch.prune|fetch.prunetags|fetch.writecommitgraph|pull.rebase|pull.ff|push.default|push.autosetupremote|"
    "push.followtags|merge.ff|merge.conflictstyle|rebase.autosquash|rebase.autostash|"
    "advice.*|color.ui|status.showuntrackedfiles|receive.denycurrentbranch|receive.denynonfastforwards|"
    "lfs.repositoryformatversion";

// Keys the context's own ~/.gitconfig may not set (its HOME is its own, but a write through a
// link in a repository once made it the user's): includes, drivers, aliases, a pack hook.
constexpr const char* kDeniedGlobalKeys =
    "include.*|includeif.*|filter.*|alias.*|diff.*.textconv|diff.*.command|merge.*.driver|"
    "uploadpack.packobjectshook";

// Trust zones (sh functions): the context's own HOME and /tmp, or the shared rest. A trusted
// git keeps each repository, and each transport from one, inside one zone.
std::string ZoneFunctions() {
  return "# PATH's zone into zv (no subshell: these run on every git).\n"
         "zone() { case $1 in \"$HOME\"|\"$HOME\"/*|/tmp|/tmp/*) zv=own ;; *) zv=shared ;; esac; }\n"
         "# The paths the caller named, as named (a link not followed: `cd /workspace/r` keeps $PWD\n"
         "# logical): nm the repository (--git-dir or GIT_DIR, else the directory after -C), nw the\n"
         "# work tree (--work-tree or GIT_WORK_TREE), absolute.\n"
         "named_of() {\n"
         "  ns=$PWD; nm=${GIT_DIR:-}; nw=${GIT_WORK_TREE:-}\n"
         "  while [ $# -gt 0 ]; do\n"
         "    case $1 in\n"
         "      -C) case $2 in /*) ns=$2 ;; '') ;; *) ns=$ns/$2 ;; esac; shift ;;\n"
         "      --git-dir) nm=$2; shift ;;\n"
         "      --git-dir=*) nm=${1#--git-dir=} ;;\n"
         "      --work-tree) nw=$2; shift ;;\n"
         "      --work-tree=*) nw=${1#--work-tree=} ;;\n"
         "      -c|--namespace|--config-env|--super-prefix) shift ;;\n"
         "    esac\n"
         "    shift\n"
         "  done\n"
         "  case $nm in ''|.) nm=$ns ;; /*) ;; *) nm=$ns/$nm ;; esac\n"
         "  case $nw in ''|/*) ;; *) nw=$ns/$nw ;; esac\n"
         "}\n"
         "# ZONE OBJECTS DEPTH: the first alternate object store (followed 5 deep, as git does) outside\n"
         "# ZONE: git would read (and push) objects of the other zone's repositories as its own.\n"
         "altbad() {\n"
         "  f=$2/info/alternates\n"
         "  { [ -e \"$f\" ] || [ -L \"$f\" ]; } || return 0\n"
         "  { [ -f \"$f\" ] && [ ! -L \"$f\" ]; } || { echo \"$f is not a regular file (a FIFO git would wait on, a link git would write through)\"; return; }\n"
         "  [ \"$3\" -lt 5 ] || return 0\n"
         "  while IFS= read -r a; do\n"
         "    case $a in ''|'#'*) continue ;; /*) ;; *) a=$2/$a ;; esac\n"
         "    r=$(realpath -m -- \"$a\" 2>/dev/null) || r=$a\n"
         "    zone \"$r\"; [ \"$zv\" = \"$1\" ] || { echo \"$f names $a, in another trust zone\"; return; }\n"
         "    v=$(altbad \"$1\" \"$r\" $(($3 + 1))); [ -z \"$v\" ] || { echo \"$v\"; return; }\n"
         "  done < \"$f\"\n"
         "}\n"
         "# WORKTREE DOTGIT: an embedded repository's git directory (a link, a .git file) outside the\n"
         "# work tree's zone, or a link in its .git directory.\n"
         "embedbad() {\n"
         "  e=$2; t=\n"
         "  if [ -L \"$e\" ]; then t=$e\n"
         "  elif [ -f \"$e\" ]; then t=$(sed -n 's/^gitdir: //p' \"$e\"); case $t in ''|/*) ;; *) t=${e%/*}/$t ;; esac\n"
         "  elif [ -d \"$e\" ]; then gitdirbad \"$e\" | sed \"s|\\$| is not a regular file (a FIFO git would wait on, a link git would write through)|\"; return\n"
         "  fi\n"
         "  [ -n \"$t\" ] || return 0\n"
         "  r=$(realpath -m -- \"$t\" 2>/dev/null) || r=$t\n"
         "  zone \"$1\"; zw=$zv; zone \"$r\"; [ \"$zv\" = \"$zw\" ] ||\n"
         "    echo \"the embedded repository ${e%/.git} has its git directory $r in another trust zone\"\n"
         "}\n";
}

// The checks before any git runs against what git opens blocking (sh functions, used by guard
// and by the transports): a FIFO of the user's where git reads hangs it.
std::string FifoFunctions() {
  return "# Where git will look for its repository (git's options: -C, --git-dir; GIT_DIR), found as\n"
         "# git finds it but by lstat only: the git directory, a .git file, or nothing.\n"
         "gitdir_of() {\n"
         "  s=$(pwd -P); g=${GIT_DIR:-}  # (physical, as git's getcwd: a linked directory's parent is not its link's)\n"
         "  while [ $# -gt 0 ]; do\n"
         "    case $1 in\n"
         "      -C) [ -z \"$2\" ] || s=$(cd \"$s\" 2>/dev/null && cd \"$2\" 2>/dev/null && pwd -P) || return 0; shift ;;\n"
         "      --git-dir) g=$2; shift ;;\n"
         "      --git-dir=*) g=${1#--git-dir=} ;;\n"
         "      -c|--work-tree|--namespace|--config-env|--super-prefix) shift ;;\n"
         "    esac\n"
         "    shift\n"
         "  done\n"
         "  if [ -n \"$g\" ]; then case $g in /*) echo \"$g\" ;; *) echo \"$s/$g\" ;; esac; return; fi\n"
         "  d=$s\n"
         "  while :; do\n"
         "    if [ -e \"$d/.git\" ] || [ -L \"$d/.git\" ]; then echo \"$d/.git\"; return; fi\n"
         "    if [ -d \"$d/objects\" ] && [ -d \"$d/refs\" ]; then echo \"$d\"; return; fi  # bare: git opens its HEAD\n"
         "    [ \"$d\" = / ] || [ -z \"$d\" ] && return\n"
         "    d=$(dirname \"$d\")\n"
         "  done\n"
         "}\n"
         "# git opens what it reads blocking: a FIFO the user put at .git/config, HEAD, commondir,\n"
         "# packed-refs, or a .gitignore/.gitattributes/.gitmodules/.mailmap in the work tree hangs it\n"
         "# (and these checks' own git calls) for good. So before any git runs: the git directory\n"
         "# holds only regular files and directories, the work tree none of those names as a FIFO,\n"
         "# socket or device (a link there git opens O_NOFOLLOW), seen by lstat (find): nothing of\n"
         "# the user's is opened. (Swapped in after\n"
         "# this, git still hangs: a denial of service the platform bounds with a deadline.)\n"
         "gitdirbad() { # DIR: its first entry that is neither a regular file nor a directory (objects and\n"
         "  # packs too: git opens a loose object or a pack's .idx to read it)\n"
         "  find \"$1/\" ! -type f ! -type d -print -quit 2>/dev/null\n"
         "}\n"
         "nonregular() { # GITDIR, or a .git file (a linked worktree's, a submodule's): why git would hang\n"
         "  # or leave the zone; nothing if neither\n"
         "  g=$1\n"
         "  if [ -L \"$g\" ] || { [ -e \"$g\" ] && [ ! -d \"$g\" ] && [ ! -f \"$g\" ]; }; then echo \"$g is not a regular file (a FIFO git would wait on, a link git would write through)\"; return; fi\n"
         "  w=; case $g in */.git) w=${g%/.git} ;; esac\n"
         "  if [ -f \"$g\" ]; then  # where it points (read after the check above: a regular file)\n"
         "    t=$(sed -n 's/^gitdir: //p' \"$g\"); case $t in ''|/*) ;; *) t=${g%/*}/$t ;; esac\n"
         "    g=$t\n"
         "  fi\n"
         "  if [ -n \"$g\" ] && [ -d \"$g\" ]; then\n"
         "    gitdirbad \"$g\" | sed \"s|\\$| is not a regular file (a FIFO git would wait on, a link git would write through)|\"\n"
         "    if [ -f \"$g/commondir\" ] && [ ! -L \"$g/commondir\" ]; then  # a linked worktree's config is its common dir's\n"
         "      c=$(cat \"$g/commondir\"); case $c in /*) ;; *) c=$g/$c ;; esac\n"
         "      [ -d \"$c\" ] && gitdirbad \"$c\" | sed \"s|\\$| is not a regular file (a FIFO git would wait on, a link git would write through)|\"\n"
         "    fi\n"
         "  fi\n"
         "  [ -n \"$w\" ] || return 0\n"
         "  # One walk of the work tree: those four names as FIFOs, and every embedded repository's\n"
         "  # .git (git add records its HEAD as a gitlink: a link or .git file into the other zone\n"
         "  # would hand the user a private id; a .git directory's links, what they point at).\n"
         "  find \"$w/\" -path \"$w/.git\" -prune -o -name .git -print -prune -o \\( -name .gitignore -o -name .gitattributes -o -name .gitmodules -o -name .mailmap \\) \\( -type p -o -type s -o -type c -o -type b \\) -print 2>/dev/null |\n"
         "    while IFS= read -r f; do\n"
         "      case $f in\n"
         "        */.git) v=$(embedbad \"$w\" \"$f\"); [ -z \"$v\" ] || { echo \"$v\"; break; } ;;\n"
         "        *) echo \"$f is not a regular file (a FIFO git would wait on, a link git would write through)\"; break ;;\n"
         "      esac\n"
         "    done\n"
         "}\n"
         "# A transport's far end takes its repository last; tried as git's enter_repo does.\n"
         "farend_dir() {\n"
         "  for a; do last=$a; done; d=${last:-.}\n"
         "  for x in \"$d/.git\" \"$d\" \"$d.git/.git\" \"$d.git\"; do\n"
         "    if [ -e \"$x/HEAD\" ] || [ -L \"$x/HEAD\" ]; then echo \"$x\"; return; fi\n"
         "  done\n"
         "}\n";
}

// The checks before git runs (sh functions): guard N ARGS... with the caller's first N
// arguments being git's own options. Each reads with the real git, as the command will.
std::string GuardFunctions() {
  return "tab=$(printf '\\t')\n"
         "refuse() { echo \"sandshim trusted git: refusing: $*, which a trusted context does not run or write through (docs/CONTEXTS.md)\" >&2; exit 128; }\n"
         "globalbad() { # what the context's own ~/.gitconfig may not set: it names files or commands\n"
         "  case $1 in " + std::string(kDeniedGlobalKeys) + ") return 0 ;; esac\n"
         "  return 1\n"
         "}\n"
         + ZoneFunctions() + FifoFunctions() +
         "guard() {\n"
         "  k=$1; shift; i=0\n"
         "  for a; do shift; [ $i -lt $k ] && set -- \"$@\" \"$a\"; i=$((i+1)); done\n"
         "  # 0. Nothing but regular files where git reads first (above).\n"
         "  g0=$(gitdir_of \"$@\")\n"
         "  if [ -n \"$g0\" ]; then\n"
         "    nr=$(nonregular \"$g0\")\n"
         "    [ -z \"$nr\" ] || refuse \"$nr\"\n"
         "  fi\n"
         "  # 1. The repository's own config, includes not followed (an include names a file of the\n"
         "  #    user's choosing, a FIFO maybe; include.* is not a data key, so it is refused). -P: git\n"
         "  #    reads the pager config (includes followed) before any command that may page.\n"
         "  keys=$(\"$real\" -P \"$@\" config --list --show-scope --name-only --no-includes) || die 'cannot read the repository config'\n"
         "  bad=$(printf '%s\\n' \"$keys\" | while IFS=\"$tab\" read -r scope key; do\n"
         "    case $scope in local|worktree) allowed \"$key\" || { printf '%s (%s)\\n' \"$key\" \"$scope\"; break; } ;; esac\n"
         "  done)\n"
         "  [ -z \"$bad\" ] || refuse \"the repository's config sets $bad\"\n"
         "  # 2. The context's own ~/.gitconfig (the protected global config includes it): a regular\n"
         "  #    file that includes nothing and names no driver or alias.\n"
         "  h=$HOME/.gitconfig\n"
         "  if [ -e \"$h\" ] || [ -L \"$h\" ]; then\n"
         "    { [ -f \"$h\" ] && [ ! -L \"$h\" ]; } || refuse \"$h is not a regular file\"\n"
         "    keys=$(\"$real\" -P config --file \"$h\" --list --name-only --no-includes) || die \"cannot read $h\"\n"
         "    bad=$(printf '%s\\n' \"$keys\" | while read -r key; do globalbad \"$key\" && { echo \"$key\"; break; }; done)\n"
         "    [ -z \"$bad\" ] || refuse \"$h sets $bad\"\n"
         "  fi\n"
         "  # 3. Where the repository is: the paths the caller named (as named: a link not followed),\n"
         "  #    the work tree and the git and common directories git resolves them to, all in one\n"
         "  #    zone (the context's own HOME and /tmp, or the shared rest): a .git file, a commondir\n"
         "  #    or a linked directory in the workspace cannot point the platform's git at its\n"
         "  #    private repository, nor the reverse. The zone goes to the gits this one starts.\n"
         "  info=$(\"$real\" \"$@\" rev-parse --path-format=absolute --absolute-git-dir --git-common-dir --show-toplevel 2>/dev/null)\n"
         "  [ -n \"$info\" ] || return 0\n"
         "  { IFS= read -r gd; IFS= read -r cd; IFS= read -r top; } <<EOF\n$info\nEOF\n"
         "  named_of \"$@\"; zone \"$nm\"; z=$zv\n"
         "  for p in \"$nw\" \"$gd\" \"$cd\" \"$top\"; do\n"
         "    [ -z \"$p\" ] || { zone \"$p\"; [ \"$zv\" = \"$z\" ]; } || refuse \"$p is in another trust zone than $nm, the path named\"\n"
         "  done\n"
         "  [ -n \"${SANDSHIM_GIT_ZONE:-}\" ] || case $cmd in clone|init) ;; *) export SANDSHIM_GIT_ZONE=$z ;; esac\n"
         "  if [ -e \"$cd/objects/info/alternates\" ] || [ -L \"$cd/objects/info/alternates\" ]; then\n"
         "    alt=$(altbad \"$z\" \"$cd/objects\" 0); [ -z \"$alt\" ] || refuse \"$alt\"\n"
         "  fi\n"
         "  # 4. Nothing but files and directories where git writes by name (COMMIT_EDITMSG,\n"
         "  #    FETCH_HEAD, logs/...): a symlink there writes wherever it points, as the platform.\n"
         "  #    Loose objects and packs are skipped (written new and renamed: no link followed).\n"
         "  [ \"$cd\" = \"$gd\" ] && cd=\n"
         "  ln=$(find \"$gd/\" ${cd:+\"$cd/\"} \\( -path '*/objects/[0-9a-f][0-9a-f]' -o -path '*/objects/pack' \\) -type d -prune -o ! -type f ! -type d -print -quit 2>/dev/null)\n"
         "  [ -z \"$ln\" ] || refuse \"$ln in the git directory is not a regular file\"\n"
         "}\n";
}

std::string Quote(const std::string& v) {
  std::string out = "'";
  for (char c : v) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> TrustedGitEnv(const std::string& global_config,
                                                                const std::string& exec_dir) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"GIT_CONFIG_NOSYSTEM", "1"},
      // git's own exec path, read-only: every git that git starts (a submodule's status, a local
      // transport's receive-pack/upload-pack, whose environment loses GIT_CONFIG_COUNT) runs
      // the wrapper, which checks its repository and puts the protections back.
      {"GIT_EXEC_PATH", exec_dir},
      {"GIT_CONFIG_GLOBAL", global_config},
      // Variables that beat the matching config keys (core.pager and pager.<cmd>, core.editor,
      // sequence.editor, core.gitProxy, core.askPass, protocol.*).
      {"GIT_PAGER", "cat"},
      {"GIT_EDITOR", "true"},
      {"GIT_SEQUENCE_EDITOR", "true"},
      {"GIT_PROXY_COMMAND", ""},
      {"GIT_ASKPASS", ""},
      {"GIT_TERMINAL_PROMPT", "0"},
      // Replace refs and grafts are repository data that change what a commit shows: what the
      // platform reviews (log -p, diff) would not be what it pushes (pack-objects ignores them).
      // /dev/null/grafts never exists (/dev/null itself would print a deprecation hint).
      {"GIT_NO_REPLACE_OBJECTS", "1"},
      {"GIT_GRAFT_FILE", "/dev/null/grafts"},
  };
  int n = 0;
  for (const auto& [k, v] : kGitOverrides) {
    env.emplace_back("GIT_CONFIG_KEY_" + std::to_string(n), k);
    env.emplace_back("GIT_CONFIG_VALUE_" + std::to_string(n), v);
    ++n;
  }
  env.emplace_back("GIT_CONFIG_COUNT", std::to_string(n));
  return env;
}

std::string TrustedGitConfig() {
  return "# sandshim: a trusted context's git config (read-only; docs/CONTEXTS.md, \"Trusted contexts\").\n"
         "# Repositories in the workspace are data: the wrapper refuses one whose config sets more than\n"
         "# data keys, and the command-line-scope settings (GIT_CONFIG_COUNT) turn off what runs commands.\n"
         "[safe]\n\tdirectory = *\n"
         "[include]\n\tpath = ~/.gitconfig\n";
}

std::string TrustedGitWrapper(const std::string& global_config, const std::string& bin_dir, const std::string& exec_dir) {
  std::string s =
      "#!/bin/sh\n"
      "# sandshim: git in a trusted context (docs/CONTEXTS.md, \"Trusted contexts\"). Generated.\n"
      "# The same script is bin/git (first in PATH) and libexec/git (GIT_EXEC_PATH: every git that\n"
      "# git itself starts, submodules' and local transports' included, comes here too).\n"
      "# The protections again, whatever the caller's environment (or git's local_repo_env) did:\n";
  for (const auto& [k, v] : TrustedGitEnv(global_config, exec_dir)) s += "export " + k + "=" + Quote(v) + "\n";
  s += "bin=" + Quote(bin_dir) + "; lib=" + Quote(exec_dir) +
       "\n"
       "die() { echo \"sandshim trusted git: $*\" >&2; exit 128; }\n"
       "# The real git: the next one in PATH after these directories.\n"
       "p=; old=$IFS; IFS=:\n"
       "for d in $PATH; do [ \"$d\" = \"$bin\" ] || [ \"$d\" = \"$lib\" ] || p=${p:+$p:}$d; done\n"
       "IFS=$old\n"
       "real=$(PATH=$p command -v git) || { echo 'sandshim trusted git: no git in PATH' >&2; exit 127; }\n"
       "# git's own programs (git-remote-https, git-sh-setup...) after everything else in PATH.\n"
       "if [ -z \"${SANDSHIM_GIT_CORE:-}\" ]; then export SANDSHIM_GIT_CORE=\"$(GIT_EXEC_PATH= \"$real\" --exec-path)\"; fi\n"
       "case :$PATH: in *:\"$SANDSHIM_GIT_CORE\":*) ;; *) PATH=$PATH:$SANDSHIM_GIT_CORE ;; esac\n"
       "# git's own options before the command (-C, -c, --git-dir...), for the checks below.\n"
       "n=0; want=; cmd=\n"
       "for a; do\n"
       "  if [ -n \"$want\" ]; then want=; n=$((n+1)); continue; fi\n"
       "  case $a in\n"
       "    -C|-c|--git-dir|--work-tree|--namespace|--config-env|--super-prefix) want=1; n=$((n+1)) ;;\n"
       "    -*) n=$((n+1)) ;;\n"
       "    *) cmd=$a; break ;;\n"
       "  esac\n"
       "done\n"
       "allowed() {\n"
       "  case $1 in\n"
       "    " + std::string(kAllowedLocalKeys) + ") return 0 ;;\n"
       "  esac\n"
       "  return 1\n"
       "}\n";
  s += GuardFunctions();
  s += "if [ -n \"$cmd\" ]; then\n"
       "  case $cmd in\n"
       "    # A transport's far end reads and writes its repository by name (refs, reflogs, config):\n"
       "    # the same checks there, before it runs. And a git working in the shared zone never\n"
       "    # reaches the own one through a local URL (a remote, a submodule of the user's); the\n"
       "    # other way, a clone or fetch of a workspace repository into the home, is pattern 1.\n"
       "    upload-pack|receive-pack|upload-archive)\n"
       "      caller=${SANDSHIM_GIT_ZONE:-}; z=; x=$(farend_dir \"$@\")\n"
       "      if [ -n \"$x\" ]; then guard 3 -C \"$x\" --git-dir=.; else for a; do last=$a; done; guard 2 -C \"${last:-.}\"; fi\n"
       "      [ \"$caller\" != shared ] || [ \"$z\" != own ] ||\n"
       "        refuse \"the repository ${x:-$last} is in the context's own zone, the caller's in the shared one\" ;;\n"
       "    # Plumbing the commands above start in a repository already checked.\n"
       "    pack-objects|index-pack|unpack-objects|rev-list) ;;\n"
       "    *) guard \"$n\" \"$@\" ;;\n"
       "  esac\n"
       "fi\n"
       "exec \"$real\" \"$@\"\n";
  return s;
}

std::string TrustedGitDashed(const std::string& exec_dir, const std::string& command) {
  // git runs a local transport's far end as `git-receive-pack '<path>'` from its exec path,
  // with GIT_CONFIG_COUNT stripped (local_repo_env): through the wrapper, which puts it back.
  return "#!/bin/sh\nexec " + Quote(exec_dir + "/git") + " " + command + " \"$@\"\n";
}

std::string TrustedGitSourced(const std::string& name) {
  // Scripts in git's exec path source this one as "$(git --exec-path)/NAME": the real one.
  return "# sandshim: the real " + name + " from git's own exec path.\n. \"$SANDSHIM_GIT_CORE/" + name + "\"\n";
}

}  // namespace sandshim::session
