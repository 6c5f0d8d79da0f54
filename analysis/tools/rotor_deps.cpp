// rotor-deps: prints the dependence vectors and the plan of a loop-model file.
//
//   rotor-deps analysis/models/sgd_mf.loop          # the report in words
//   rotor-deps --json analysis/models/sgd_mf.loop   # the contract's loop object
//   rotor-deps --summary FILE...                    # one line per model

#include "rotor/analysis/LoopModelText.h"
#include "rotor/analysis/Plan.h"
#include "rotor/analysis/PlanText.h"

#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

int usage(std::ostream& out, int rc) {
  out << "usage: rotor-deps [--json | --summary] MODEL.loop...\n"
         "Prints the dependence vectors and the plan that Rotor's analysis picks for each loop\n"
         "model (format: analysis/README.md).\n";
  return rc;
}

} // namespace

int main(int argc, char** argv) {
  enum class Mode { text, json, summary } mode = Mode::text;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      mode = Mode::json;
    } else if (arg == "--summary") {
      mode = Mode::summary;
    } else if (arg == "-h" || arg == "--help") {
      return usage(std::cout, 0);
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "rotor-deps: error: unknown option '" << arg << "'\n";
      return usage(std::cerr, 2);
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) {
    return usage(std::cerr, 2);
  }
  int rc = 0;
  for (const std::string& file : files) {
    try {
      using namespace rotor::analysis;
      const LoopModel model = read_loop_model_file(file);
      const Plan plan = plan_loop(model);
      if (mode == Mode::json) {
        std::cout << plan_to_json(model, plan) << "\n";
      } else if (mode == Mode::summary) {
        std::cout << file << ": " << plan_summary(model, plan) << "\n";
      } else {
        std::cout << plan_to_text(model, plan);
      }
    } catch (const rotor::analysis::LoopModelError& e) {
      std::cerr << e.what() << "\n";
      rc = 1;
    } catch (const std::exception& e) { // a bug, not bad input: still one clear line
      std::cerr << file << ": error: internal error: " << e.what() << "\n";
      rc = 1;
    }
  }
  return rc;
}
