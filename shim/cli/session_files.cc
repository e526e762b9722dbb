// `session files ls|read|write|rm ID PATH`: one file or directory of a session, resolved in
// the session's own view (session/files.h). read writes the bytes to stdout, write takes them
// from stdin; ls --json prints [{name, type, mode, size, mtime, uid, gid, target}].
#include <iomanip>
#include <iostream>

#include "shim/cli/session_common.h"
#include "shim/session/files/files.h"

namespace sandshim::cli {
namespace {

struct FilesArgs {
  std::string ref, path, user;
  bool json = false, recursive = false;
};

using FilesOp = std::function<Status(session::Sessions&, const session::SessionRecord&, const FilesArgs&)>;

int RunFilesOp(Verbs& v, const FilesArgs& a, const std::string& verb, const FilesOp& op) {
  auto s = OpenSessions(v.global);
  if (!s) return ExitWith(Status(s.error()));
  auto target = s->ForExec(a.ref);
  if (!target) return ExitWith(Status(target.error().Wrap("session files " + verb + " " + a.ref)));
  runtime::EnsureSealedFor(runtime::TraitsOf(target->backend));
  if (auto d = op(*s, *target, a); !d) return ExitWith(Status(d.error().Wrap("session files " + verb + " " + a.ref)));
  return 0;
}

boost::json::object EntryJson(const session::FileEntry& e) {
  boost::json::object o{{"name", e.name}, {"type", e.type}, {"mode", e.mode}, {"size", e.size},
                        {"mtime", e.mtime}, {"uid", e.uid},   {"gid", e.gid}};
  if (e.type == "symlink") o["target"] = e.target;
  return o;
}

void PrintEntries(const std::vector<session::FileEntry>& all, bool json) {
  if (json) {
    boost::json::array out;
    for (const auto& e : all) out.push_back(EntryJson(e));
    PrintJson(out);
    return;
  }
  for (const auto& e : all) {
    std::cout << std::left << std::setw(8) << e.type << std::oct << std::setw(6) << e.mode << std::dec
              << std::right << std::setw(12) << e.size << " " << e.name;
    if (e.type == "symlink") std::cout << " -> " << e.target;
    std::cout << "\n";
  }
}

CLI::App* AddOp(Verbs& v, CLI::App* group, const std::string& name, const std::string& help, const FilesOp& op,
                const std::shared_ptr<FilesArgs>& a) {
  auto* sub = v.Add(name, help, [&v, a, name, op] { return RunFilesOp(v, *a, name, op); }, group);
  sub->add_option("session", a->ref, "session id or name")->required();
  sub->add_option("path", a->path, "a path in the session (relative: to its working directory)")->required();
  sub->add_option("-u,--user", a->user, "uid[:gid] to act as (default: the session's user)");
  return sub;
}

}  // namespace

void RegisterSessionFiles(Verbs& v, CLI::App* parent) {
  CLI::App* group = parent->add_subcommand("files", "a session's files: ls, read, write, rm");
  group->require_subcommand(1);
  auto ls = std::make_shared<FilesArgs>();
  AddOp(v, group, "ls", "list a directory (or one file)", [ls](auto& s, const auto& r, const FilesArgs& a) -> Status {
    auto all = TRY(session::ListFiles(s, r, a.path, {a.user}));
    PrintEntries(all, a.json);
    return {};
  }, ls)->add_flag("--json", ls->json, "print a JSON array of {name, type, mode, size, mtime, uid, gid, target}");
  AddOp(v, group, "read", "a file's bytes to stdout", [](auto& s, const auto& r, const FilesArgs& a) {
    std::cout.flush();
    return session::ReadFile(s, r, a.path, 1, {a.user});
  }, std::make_shared<FilesArgs>());
  AddOp(v, group, "write", "stdin into a file (parent directories made)", [](auto& s, const auto& r, const FilesArgs& a) {
    return session::WriteFile(s, r, a.path, 0, {a.user});
  }, std::make_shared<FilesArgs>());
  auto rm = std::make_shared<FilesArgs>();
  AddOp(v, group, "rm", "remove a file (-r: a tree)", [](auto& s, const auto& r, const FilesArgs& a) {
    return session::RemoveFile(s, r, a.path, a.recursive, {a.user});
  }, rm)->add_flag("-r,--recursive", rm->recursive, "remove a directory and everything in it");
}

}  // namespace sandshim::cli
