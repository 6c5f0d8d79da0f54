// Random loop models -> plan_loop -> brute-force check of the plan's claims. Prints a table of
// plan kinds and the number of violations (0 expected); exits 1 on any violation and prints the
// first offending model in the loop-model text format.
//
//   build/default/bench/analysis/analysis_soundness_bench --models 100000 --seed 1
//   build/default/bench/analysis/analysis_soundness_bench --models 100000 --stencils

#include "rotor/analysis/LoopModelText.h"
#include "rotor/analysis/Plan.h"
#include "rotor/analysis/SoundnessCheck.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

int main(int argc, char** argv) {
  using namespace rotor::analysis;
  long models = 10000;
  unsigned long long seed = 1;
  bool stencils = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--stencils") {
      stencils = true;
    } else if ((arg == "--models" || arg == "--seed") && i + 1 < argc) {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0') {
        std::cerr << "analysis_soundness_bench: error: " << arg << " '" << argv[i]
                  << "' is not a number\n";
        return 2;
      }
      (arg == "--models" ? models = static_cast<long>(v) : seed = v, 0);
    } else {
      std::cerr << "usage: analysis_soundness_bench [--models N] [--seed S] [--stencils]\n";
      return 2;
    }
  }
  std::mt19937_64 rng(seed);
  std::map<std::string, long> kinds;
  long violations = 0;
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < models; ++i) {
    const LoopModel m = stencils ? random_stencil_model(rng) : random_loop_model(rng);
    const Plan p = plan_loop(m);
    std::string kind = to_string(p.kind);
    if (p.kind == PlanKind::unimodular) {
      kind += std::string(" + ") + to_string(p.base);
    }
    ++kinds[kind + (m.ordered ? " (ordered)" : "")];
    const CheckResult r = check_plan(m, p, rng());
    if (!r.ok) {
      if (violations++ == 0) {
        std::cerr << "violation in model " << i << ": " << r.violation << "\n"
                  << loop_model_to_text(m);
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%-34s %10s\n", "plan kind", "models");
  for (const auto& [kind, count] : kinds) {
    std::printf("%-34s %10ld\n", kind.c_str(), count);
  }
  std::printf("%-34s %10ld\n%-34s %10ld\n%-34s %10.2f\n", "total", models, "violations", violations,
              "seconds", seconds);
  return violations == 0 ? 0 : 1;
}
