#include "FrontendOracle.h"

#include "rotor/analysis/LoopModelText.h"
#include "rotor/analysis/Plan.h"
#include "rotor/analysis/SoundnessCheck.h"
#include "rotor/frontend/Explain.h"

#include <cstdio>
#include <exception>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

namespace rotor_fuzz {
namespace {

/// Sends fd 2 to /dev/null while alive (Clang prints errors of broken mutants there).
class QuietStderr {
public:
  explicit QuietStderr(bool quiet) {
    if (!quiet) {
      return;
    }
    std::fflush(stderr);
    saved_ = dup(2);
    const int null = open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && null >= 0) {
      dup2(null, 2);
    }
    if (null >= 0) {
      close(null);
    }
  }
  ~QuietStderr() {
    if (saved_ >= 0) {
      std::fflush(stderr);
      dup2(saved_, 2);
      close(saved_);
    }
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

private:
  int saved_ = -1;
};

std::string where(const rotor::analysis::LoopModel& m) {
  return m.loc.file + ":" + std::to_string(m.loc.line);
}

} // namespace

rotor::frontend::Options options_from_config(const std::string& config_path,
                                             const std::vector<std::string>& extra) {
  rotor::frontend::Options o;
  std::ifstream cfg(config_path);
  std::string line;
  while (std::getline(cfg, line)) {
    if (line.rfind("compile ", 0) == 0) {
      o.clang_args.push_back(line.substr(8));
    }
  }
  o.clang_args.insert(o.clang_args.end(), extra.begin(), extra.end());
  return o;
}

OracleResult check_source(const std::string& code, const std::string& name,
                          const rotor::frontend::Options& options, std::uint64_t seed, bool quiet) {
  namespace an = rotor::analysis;
  OracleResult out;
  rotor::frontend::FileResult r;
  try {
    QuietStderr q(quiet);
    r = rotor::frontend::process_source(code, name, options);
    (void)rotor::frontend::explain_json(r.loops);
    (void)rotor::frontend::explain_text(r.loops);
    for (const auto& d : r.diagnostics) {
      (void)rotor::frontend::format(d);
    }
  } catch (const std::exception& e) {
    out.failures.push_back(std::string("frontend threw: ") + e.what());
    return out;
  }
  out.parsed = r.ok;
  if (r.ok && r.changed && r.rewritten.empty()) {
    out.failures.push_back("a loop was rewritten but the rewritten file is empty");
  }
  for (const auto& loop : r.loops) {
    ++out.loops;
    if (loop.plan.kind == an::PlanKind::serial) {
      continue;
    }
    ++out.parallel_loops;
    out.data_parallel_loops += loop.plan.kind == an::PlanKind::data_parallel ? 1 : 0;
    const std::vector<std::string> invalid = an::validate_loop_model(loop.model);
    if (!invalid.empty()) {
      out.failures.push_back(where(loop.model) + ": parallel plan for an invalid model: " +
                             invalid.front() + "\n" + an::loop_model_to_text(loop.model));
      continue;
    }
    const an::Plan again = an::plan_loop(loop.model);
    if (an::plan_to_json(loop.model, again) != an::plan_to_json(loop.model, loop.plan)) {
      out.failures.push_back(where(loop.model) +
                             ": the frontend's plan is not plan_loop's for its model");
    }
    an::CheckOptions co;
    co.instances = 4;
    const an::CheckResult c = an::check_plan(loop.model, loop.plan, seed, co);
    if (!c.ok) {
      out.failures.push_back(where(loop.model) + ": unsound " + an::to_string(loop.plan.kind) +
                             " plan: " + c.violation + "\n" + an::loop_model_to_text(loop.model));
    }
  }
  return out;
}

} // namespace rotor_fuzz
