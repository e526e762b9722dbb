// `pool`: warm pools of pre-booted sandboxes for `session create --pool` (docs/POOL.md):
// define NAME FILE, fill NAME, status [NAME] [--json], drain NAME [--delete], gc.
#include <iomanip>
#include <iostream>

#include "shim/cli/session_common.h"
#include "shim/core/fs.h"
#include "shim/core/mountinfo.h"
#include "shim/core/remove_tree.h"
#include "shim/session/pool/pool.h"

namespace sandshim::cli {

static Result<session::Pool> OpenPool(const GlobalOpts& g, const std::string& name) {
  return session::Pool(TRY(RuntimeOptions(g)), name, RefillArgv(g, name));
}

static boost::json::object StatusJson(const session::PoolStatus& s) {
  return {{"name", s.def.name}, {"size", s.def.size}, {"low_water", s.def.low_water}, {"ready", s.ready},
          {"stale", s.stale}, {"making", s.making}, {"generation", s.def.generation},
          {"workspace_parent", s.def.workspace_parent.string()}, {"from_snapshot", s.def.from_snapshot},
          {"claims", s.stats.claims}, {"misses", s.stats.misses}, {"members_made", s.stats.members_made},
          {"refills", s.stats.refills}, {"last_refill_seconds", s.stats.last_refill_seconds},
          {"refill_seconds_total", s.stats.refill_seconds_total}};
}

static void AddDefine(Verbs& v, CLI::App* parent) {
  auto name = std::make_shared<std::string>(), file = std::make_shared<std::string>();
  auto* sub = v.Add("define", "define (or redefine) a pool from a pool file", [&v, name, file] {
    auto text = fs::ReadFile(*file);
    if (!text) return ExitWith(Status(text.error().Wrap("pool define")));
    auto opts = RuntimeOptions(v.global);
    if (!opts) return ExitWith(Status(opts.error()));
    auto d = session::Pool::Define(*opts, *name, *text);
    if (!d) return ExitWith(Status(d.error().Wrap("pool define " + *name)));
    std::cout << d->name << "\tsize " << d->size << "\tlow_water " << d->low_water << "\n";
    return 0;
  }, parent);
  sub->add_option("name", *name, "pool name")->required();
  sub->add_option("file", *file, "pool file: {\"size\":N,\"low_water\":M,\"profile\":{...}}")->required();
}

static void AddFill(Verbs& v, CLI::App* parent) {
  auto name = std::make_shared<std::string>();
  auto background = std::make_shared<bool>(false);
  auto* sub = v.Add("fill", "boot members until the pool is full", [&v, name, background] {
    auto p = OpenPool(v.global, *name);
    if (!p) return ExitWith(Status(p.error()));
    if (*background) {
      p->RefillInBackground();
      return 0;
    }
    auto s = p->Fill();
    return s ? 0 : ExitWith(Status(s.error().Wrap("pool fill " + *name)));
  }, parent);
  sub->add_option("name", *name, "pool name")->required();
  sub->add_flag("--background", *background, "start the refill detached and return at once");
}

static void AddStatus(Verbs& v, CLI::App* parent) {
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  v.Add("status", "members ready, claims, misses, refill time", [&v, name, json] {
    auto opts = RuntimeOptions(v.global);
    if (!opts) return ExitWith(Status(opts.error()));
    auto names = name->empty() ? session::ListPools(opts->root) : std::vector<std::string>{*name};
    boost::json::array all;
    for (const auto& n : names) {
      auto s = session::Pool(*opts, n).GetStatus();
      if (!s) return ExitWith(Status(s.error().Wrap("pool status")));
      all.push_back(StatusJson(*s));
    }
    if (*json) {
      PrintJson(all);
      return 0;
    }
    std::cout << std::left << std::setw(16) << "POOL" << std::setw(6) << "SIZE" << std::setw(7) << "READY" << std::setw(8)
              << "CLAIMS" << std::setw(8) << "MISSES" << "LAST REFILL (s)\n";
    for (const auto& o : all) {
      const auto& s = o.as_object();
      std::cout << std::setw(16) << s.at("name").as_string().c_str() << std::setw(6) << s.at("size").to_number<int64_t>()
                << std::setw(7) << s.at("ready").to_number<int64_t>() << std::setw(8) << s.at("claims").to_number<int64_t>() << std::setw(8)
                << s.at("misses").to_number<int64_t>() << s.at("last_refill_seconds").to_number<double>() << "\n";
    }
    return 0;
  }, parent)->add_option("name", *name, "pool name (default: every pool)");
  parent->get_subcommand("status")->add_flag("--json", *json, "print JSON");
}

static void AddDrain(Verbs& v, CLI::App* parent) {
  auto name = std::make_shared<std::string>();
  auto remove = std::make_shared<bool>(false);
  auto* sub = v.Add("drain", "delete every member (and with --delete, the pool)", [&v, name, remove] {
    auto p = OpenPool(v.global, *name);
    if (!p) return ExitWith(Status(p.error()));
    if (auto s = p->Drain(); !s) return ExitWith(Status(s.error().Wrap("pool drain " + *name)));
    if (!*remove) return 0;
    auto rep = p->Gc();  // interrupted claims and half-made members too
    if (!rep.errors.empty()) return ExitWith(Status(MakeError("pool drain " + *name + ": " + rep.errors.front(), EBUSY)));
    // A session made from this pool (claimed or cold) may still be using a workspace below the
    // pool's directory: refused before anything is removed, never deleted under it.
    auto text = fs::ReadFile("/proc/self/mountinfo");
    auto busy = mountinfo::MountPointsUnder(mountinfo::Parse(text ? *text : ""), p->paths().dir);
    if (!busy.empty())
      return ExitWith(Status(MakeError("pool drain " + *name + " --delete: " + busy.back().string() +
                                           " is mounted (a live session's workspace): delete that session first", EBUSY)));
    auto d = p->Load();
    if (d && d->workspace_parent == p->paths().default_workspaces) (void)fs::RemoveTree(d->workspace_parent);
    return ExitWith(fs::RemoveTree(p->paths().dir));
  }, parent);
  sub->add_option("name", *name, "pool name")->required();
  sub->add_flag("--delete", *remove, "also remove the pool's definition");
}

static void AddGc(Verbs& v, CLI::App* parent) {
  auto json = std::make_shared<bool>(false);
  v.Add("gc", "undo interrupted claims; remove half-made, dead and stale members", [&v, json] {
    auto opts = RuntimeOptions(v.global);
    if (!opts) return ExitWith(Status(opts.error()));
    std::vector<std::string> removed, errors;
    for (const auto& n : session::ListPools(opts->root)) {
      auto rep = session::Pool(*opts, n).Gc();
      removed.insert(removed.end(), rep.removed.begin(), rep.removed.end());
      errors.insert(errors.end(), rep.errors.begin(), rep.errors.end());
    }
    return PrintGcReport(removed, errors, *json, "pool gc");
  }, parent);
  parent->get_subcommand("gc")->add_flag("--json", *json, "print the report as JSON");
}

void RegisterPool(Verbs& v) {
  CLI::App* p = v.app.add_subcommand("pool", "warm pools: pre-booted sandboxes for session create --pool");
  p->require_subcommand(1);
  p->footer(
      "Example:\n"
      "  sandshim pool define py pool.json     # {\"size\":10,\"low_water\":5,\"profile\":{\"image\":\"busybox\"}}\n"
      "  sandshim pool fill py\n"
      "  sandshim session create --pool py --workspace /srv/ws/conv42 conv42\n"
      "  sandshim pool status --json; sandshim pool drain py --delete");
  AddDefine(v, p);
  AddFill(v, p);
  AddStatus(v, p);
  AddDrain(v, p);
  AddGc(v, p);
}

}  // namespace sandshim::cli
