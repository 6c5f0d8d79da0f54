// rotor-frontend-fuzz: mutates annotated C++ sources and checks the frontend on each mutant
// (FrontendOracle.h), or replays files unmutated.
//
//   rotor-frontend-fuzz --config rotor-cc.cfg [--seconds S] [--inputs N] [--seed X]
//                       [--out DIR] [--timeout S]
//                       [--execute BUILD [--exec-timeout S] [--exec-mpi2]]
//                       [-I DIR]... SEED.cpp|DIR...
//   rotor-frontend-fuzz --config rotor-cc.cfg --replay [-I DIR]... FILE.cpp|DIR...
//
// --execute BUILD adds the execution oracle (MutantExecutor.h): a mutant of a soundness-corpus
// program that the frontend plans parallel is built like the corpus in the Ninja build tree
// BUILD (serially and with rotor-cc) and run by tests/soundness/compare.sh at 2 threads; different
// hashes are a failed check; --exec-mpi2 also runs it at 2 MPI ranks (compare.sh mpi2). Mutants
// that do not build or time out (--exec-timeout, default 60 s per step) are counted, not failures.
//
// Each input is checked in a child process (IsolatedCheck.h): an input on which the frontend
// crashes, or takes longer than --timeout seconds (default 60), is a failed check, unless it
// crashes `clang++ -fsyntax-only` too (Clang 14's own bug: DIR/clang-crash-N.cpp, counted). Before
// each input it writes DIR/current.cpp (and current.edits): should the fuzzer itself die, that
// file is the input (bench/fuzz/run_frontend_fuzz.sh collects it). A failed check writes
// DIR/failure-N.cpp and .txt. Exit status: 0 when every check held, 1 otherwise, 2 on bad usage.
#include "FrontendOracle.h"
#include "IsolatedCheck.h"
#include "MutantExecutor.h"
#include "SourceMutator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Args {
  std::string config;
  double seconds = 0;
  long inputs = 0;
  std::uint64_t seed = 1;
  unsigned timeout = 60; ///< seconds per input; past it the process dies (a hang is a crash)
  std::string out = "frontend-fuzz-out";
  bool replay = false;
  bool verbose = false;
  std::string execute_build; ///< --execute: the build tree of the execution oracle
  unsigned exec_timeout = 60;
  bool exec_mpi2 = false;
  std::vector<std::string> includes;
  std::vector<std::string> paths;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr
      << "rotor-frontend-fuzz: " << why
      << "\nusage: rotor-frontend-fuzz --config CFG [--seconds S] [--inputs N] [--seed X] "
         "[--out DIR] [--timeout S] [--execute BUILD [--exec-timeout S] [--exec-mpi2]] [--replay] "
         "[-v] "
         "[-I DIR]... FILE|DIR...\n";
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage(s + " needs a value");
      }
      return argv[++i];
    };
    try {
      if (s == "--config") {
        a.config = value();
      } else if (s == "--seconds") {
        a.seconds = std::stod(value());
      } else if (s == "--inputs") {
        a.inputs = std::stol(value());
      } else if (s == "--seed") {
        a.seed = std::stoull(value());
      } else if (s == "--timeout") {
        a.timeout = static_cast<unsigned>(std::stoul(value()));
      } else if (s == "--out") {
        a.out = value();
      } else if (s == "--execute") {
        a.execute_build = value();
      } else if (s == "--exec-timeout") {
        a.exec_timeout = static_cast<unsigned>(std::stoul(value()));
      } else if (s == "--exec-mpi2") {
        a.exec_mpi2 = true;
      } else if (s == "--replay") {
        a.replay = true;
      } else if (s == "-v") {
        a.verbose = true;
      } else if (s == "-I") {
        a.includes.push_back("-I" + value());
      } else if (!s.empty() && s[0] == '-') {
        usage("unknown option '" + s + "'");
      } else {
        a.paths.push_back(s);
      }
    } catch (const std::logic_error&) {
      usage("bad number for " + s);
    }
  }
  if (a.config.empty() || a.paths.empty()) {
    usage("--config and at least one file or directory are needed");
  }
  if (!a.replay && a.seconds <= 0 && a.inputs <= 0) {
    usage("--seconds or --inputs is needed");
  }
  return a;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The .cpp files named or found (not recursively) in the named directories, sorted; golden
/// outputs (*.expected.cpp) are not sources.
std::vector<rotor_fuzz::SeedSource> load_sources(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const auto& p : paths) {
    if (fs::is_directory(p)) {
      for (const auto& e : fs::directory_iterator(p)) {
        const std::string n = e.path().filename().string();
        if (e.path().extension() == ".cpp" && n.find(".expected.") == std::string::npos) {
          files.push_back(fs::absolute(e.path()));
        }
      }
    } else if (fs::is_regular_file(p)) {
      files.push_back(fs::absolute(p));
    } else {
      std::cerr << "rotor-frontend-fuzz: " << p << ": no such file or directory\n";
      std::exit(2);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<rotor_fuzz::SeedSource> out;
  for (const auto& f : files) {
    out.push_back({f.string(), read_file(f)});
  }
  return out;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

/// What a campaign counts; `print` gives the summary lines (bench/fuzz parses the first).
struct Counts {
  long inputs = 0, parsed = 0, loops = 0, parallel = 0, failures = 0;
  long clang_crashes = 0;    ///< inputs that crash `clang++ -fsyntax-only` too (Clang's bug)
  long planned_parallel = 0; ///< mutants with a parallel loop and no failed model check
  /// `differing` mutants with a data_parallel loop (not held to a serial order; not failures)
  long data_parallel_differing = 0;
  std::map<rotor_fuzz::ExecOutcome, long> executions;

  void print(double seconds, bool executed) const {
    std::printf("frontend fuzz: %ld inputs (%ld accepted), %ld loops planned (%ld parallel, all "
                "checked), %ld failed checks, %.1f s\n",
                inputs, parsed, loops, parallel, failures, seconds);
    if (clang_crashes > 0) {
      std::printf("frontend fuzz: %ld inputs crash Clang 14 itself (clang++ -fsyntax-only too; "
                  "kept as clang-crash-N.cpp, not failures)\n",
                  clang_crashes);
    }
    if (!executed) {
      return;
    }
    using rotor_fuzz::ExecOutcome;
    auto n = [&](ExecOutcome o) {
      const auto it = executions.find(o);
      return it == executions.end() ? 0L : it->second;
    };
    const long ran = n(ExecOutcome::equal) + n(ExecOutcome::differing) +
                     n(ExecOutcome::outside_footprint) + n(ExecOutcome::run_failed);
    std::printf("frontend fuzz execution: %ld mutants, %ld planned parallel, %ld not corpus "
                "programs, %ld did not build, %ld timed out, %ld executed: %ld equal, %ld "
                "differing (%ld of them with a data_parallel loop, not failures), %ld outside "
                "their block, %ld run failed; %ld not run (they change the hash or Session "
                "lines)\n",
                inputs, planned_parallel, n(ExecOutcome::no_recipe), n(ExecOutcome::build_failed),
                n(ExecOutcome::timed_out), ran, n(ExecOutcome::equal), n(ExecOutcome::differing),
                data_parallel_differing, n(ExecOutcome::outside_footprint),
                n(ExecOutcome::run_failed), n(ExecOutcome::oracle_lines_changed));
  }
};

/// Writes OUT/failure-N.cpp and .txt and prints the failures.
void save_failure(const Args& a, long n, const rotor_fuzz::Mutant& m, const std::string& name,
                  const std::vector<std::string>& failures) {
  const fs::path stem = fs::path(a.out) / ("failure-" + std::to_string(n));
  write(stem.string() + ".cpp", m.text);
  std::string report = "seed file: " + name + "\nedits:\n" + m.edits + "failures:\n";
  for (const auto& f : failures) {
    report += f + "\n";
    std::cout << "  " << f << "\n";
  }
  write(stem.string() + ".txt", report);
}

/// The frontend crashed or hung on `m` in its child: a failed check, unless the input crashes
/// `clang++ -fsyntax-only` too (saved as clang-crash-N.cpp and counted).
void note_crash(const Args& a, const rotor_fuzz::Mutant& m, const std::string& name,
                const rotor_fuzz::IsolatedResult& isolated, const rotor::frontend::Options& options,
                Counts& c) {
  using Outcome = rotor_fuzz::IsolatedResult::Outcome;
  // The seed's directory is searched first, so its relative includes resolve as they did.
  const fs::path probe = fs::path(a.out) / "clang-probe.cpp";
  write(probe, m.text);
  rotor::frontend::Options with_seed_dir = options;
  with_seed_dir.clang_args.insert(with_seed_dir.clang_args.begin(),
                                  "-I" + fs::path(name).parent_path().string());
  const bool clangs =
      isolated.outcome == Outcome::crashed &&
      rotor_fuzz::clang_crashes_too(ROTOR_FUZZ_CLANGXX, probe.string(), with_seed_dir, a.timeout);
  fs::remove(probe);
  if (clangs) {
    const fs::path stem = fs::path(a.out) / ("clang-crash-" + std::to_string(++c.clang_crashes));
    write(stem.string() + ".cpp", m.text);
    write(stem.string() + ".txt", "seed file: " + name + "\nedits:\n" + m.edits);
    return;
  }
  const std::string what =
      isolated.outcome == Outcome::timed_out
          ? "the frontend took longer than " + std::to_string(a.timeout) + " s (--timeout)"
          : "the frontend crashed (signal " + std::to_string(isolated.signal) +
                ") where clang++ -fsyntax-only does not";
  std::cout << "FAIL " << name << " (" << what << ")\n";
  save_failure(a, ++c.failures, m, name, {what});
}

/// One input: the model checks, then (with --execute, for a parallel plan) the execution oracle.
void check_one(const Args& a, const rotor::frontend::Options& options, const std::string& name,
               const rotor_fuzz::Mutant& m, std::uint64_t check_seed,
               rotor_fuzz::MutantExecutor* executor, Counts& c) {
  write(fs::path(a.out) / "current.cpp", m.text);
  write(fs::path(a.out) / "current.edits", name + "\n" + m.edits);
  ++c.inputs;
  const rotor_fuzz::IsolatedResult isolated =
      rotor_fuzz::check_isolated(m.text, name, options, check_seed, !a.verbose, a.timeout);
  if (isolated.outcome != rotor_fuzz::IsolatedResult::Outcome::checked) {
    note_crash(a, m, name, isolated, options, c);
    return;
  }
  rotor_fuzz::OracleResult r = isolated.result;
  c.parsed += r.parsed ? 1 : 0;
  c.loops += r.loops;
  c.parallel += r.parallel_loops;
  std::string executed;
  if (executor != nullptr && r.parsed && r.parallel_loops > 0 && r.failures.empty()) {
    ++c.planned_parallel;
    const rotor_fuzz::Execution x = executor->execute(name, m.text);
    ++c.executions[x.outcome];
    executed = std::string(", executed: ") + rotor_fuzz::to_string(x.outcome);
    if (x.outcome == rotor_fuzz::ExecOutcome::run_failed) {
      // Not a failed check (a mutated bound can crash both builds), but kept for a look: a
      // rotor build that fails where the serial build would not can be an unsound plan too.
      const long n = c.executions[x.outcome];
      const fs::path stem = fs::path(a.out) / ("run-failed-" + std::to_string(n));
      write(stem.string() + ".cpp", m.text);
      write(stem.string() + ".txt", "seed file: " + name + "\nedits:\n" + m.edits + x.log);
    }
    if (x.outcome == rotor_fuzz::ExecOutcome::outside_footprint) {
      r.failures.push_back("the rotor build touched an array element outside its worker's block "
                           "(checked accesses): an unsound plan (compare.sh below)\n" +
                           x.log);
    }
    if (x.outcome == rotor_fuzz::ExecOutcome::differing && r.data_parallel_loops > 0) {
      // A data_parallel loop merges its workers' buffered changes: unless every update is a
      // sum, its result is not a serial order's, by the user's buffered(...) (a mutant that
      // turns a corpus loop into one). Not a failed check; kept for a look.
      ++c.data_parallel_differing;
      const fs::path stem = fs::path(a.out) / ("data-parallel-differing-" +
                                               std::to_string(c.data_parallel_differing));
      write(stem.string() + ".cpp", m.text);
      write(stem.string() + ".txt", "seed file: " + name + "\nedits:\n" + m.edits + x.log);
    } else if (x.outcome == rotor_fuzz::ExecOutcome::differing) {
      r.failures.push_back("the rotor build and the serial replay of its order printed different "
                           "hashes: an unsound plan (compare.sh below)\n" +
                           x.log);
    }
  }
  if (a.verbose || !r.failures.empty()) {
    std::cout << (r.failures.empty() ? "ok   " : "FAIL ") << name << " (" << r.loops << " loops, "
              << r.parallel_loops << " parallel" << executed << ")\n";
  }
  if (!r.failures.empty()) {
    save_failure(a, ++c.failures, m, name, r.failures);
  }
}

} // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  const auto sources = load_sources(a.paths);
  if (sources.empty()) {
    usage("no .cpp files found");
  }
  fs::create_directories(a.out);
  const rotor::frontend::Options options = rotor_fuzz::options_from_config(a.config, a.includes);
  std::unique_ptr<rotor_fuzz::MutantExecutor> executor;
  if (!a.execute_build.empty()) {
    rotor_fuzz::ExecConfig ec;
    ec.build_dir = a.execute_build;
    ec.compare = ROTOR_FUZZ_COMPARE_SH;
    ec.ninja = ROTOR_FUZZ_NINJA;
    ec.work_dir = (fs::path(a.out) / "exec").string();
    ec.timeout = a.exec_timeout;
    if (a.exec_mpi2) {
      ec.modes.push_back("mpi2");
      ec.mpi_launcher = ROTOR_FUZZ_MPI_LAUNCHER;
    }
    executor = std::make_unique<rotor_fuzz::MutantExecutor>(ec);
  }
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  rotor_fuzz::SourceMutator mutator(sources, a.seed);
  Counts c;
  std::uint64_t check_seed = a.seed;
  for (;;) {
    if (a.replay ? c.inputs >= static_cast<long>(sources.size())
                 : ((a.inputs > 0 && c.inputs >= a.inputs) ||
                    (a.seconds > 0 && elapsed() >= a.seconds))) {
      break;
    }
    rotor_fuzz::Mutant m;
    if (a.replay) {
      m.seed = static_cast<int>(c.inputs);
      m.text = sources[static_cast<std::size_t>(c.inputs)].text;
      m.edits = "(unmutated)\n";
    } else {
      m = mutator.next();
    }
    const std::string& name = sources[static_cast<std::size_t>(m.seed)].path;
    check_one(a, options, name, m, ++check_seed, executor.get(), c);
  }
  fs::remove(fs::path(a.out) / "current.cpp");
  fs::remove(fs::path(a.out) / "current.edits");
  c.print(elapsed(), executor != nullptr);
  return c.failures == 0 ? 0 : 1;
}
