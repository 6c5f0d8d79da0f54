#pragma once
/// \file
/// The execution oracle of rotor-frontend-fuzz (`--execute`): a mutant of a soundness-corpus
/// program (tests/soundness/programs) is built twice, like the corpus builds the program itself
/// (the plain compiler, and rotor-cc as the compiler launcher), and judged by
/// tests/soundness/compare.sh in `threads` mode: the rotor build at 2 threads records its record
/// order, the serial build replays it, and the printed `hash=` lines must be equal. This sees
/// what the model-based oracle (FrontendOracle.h) cannot: an access the frontend missed.
///
/// The build commands are the corpus targets' own, read from the build tree's Ninja file
/// (`ninja -t commands -s`) and pointed at the mutant, so flags, include paths and libraries are
/// exactly the corpus's. A file is built with the commands of the corpus program of the same
/// name (`<dir>/good_mf_rotation.cpp` with those of `soundness_good_mf_rotation[_serial]`).
///
/// \code
///   rotor_fuzz::MutantExecutor ex({"build/default", "tests/soundness/compare.sh", "/tmp/x", 60});
///   rotor_fuzz::Execution e = ex.execute(seed_path, mutant_text);
///   if (e.outcome == rotor_fuzz::ExecOutcome::differing) { /* an unsound plan: e.log says why */ }
/// \endcode

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rotor_fuzz {

struct ExecConfig {
  std::string build_dir; ///< a configured Ninja build tree with the corpus (ROTOR_BUILD_SOUNDNESS)
  std::string compare;   ///< tests/soundness/compare.sh
  std::string ninja = "ninja"; ///< the build tree's Ninja (its CMAKE_MAKE_PROGRAM)
  std::string work_dir;        ///< scratch: the mutant, its objects, executables and logs
  unsigned timeout = 60;       ///< seconds for each build step and each run
  /// compare.sh modes, run in turn until one is not `equal`: "threads" (2 threads, the default)
  /// and "mpi2" (2 ranks, launched by `mpi_launcher`, e.g. "mpirun --oversubscribe ...").
  std::vector<std::string> modes = {"threads"};
  std::string mpi_launcher;
};

enum class ExecOutcome {
  no_recipe,    ///< the seed is not a corpus program of this build tree
  build_failed, ///< the mutant does not compile or link (either build)
  timed_out,    ///< a build step or a run took longer than ExecConfig::timeout
  run_failed,   ///< a run exited non-zero or printed no hash (both builds may fail alike)
  equal,        ///< the rotor build's hash equals the serial replay's
  differing,    ///< both ran and printed different hashes: an unsound plan
  /// the rotor build (compiled with checked accesses) touched an element of an array inside its
  /// shape but outside its worker's block: an unsound plan (an element outside the array's shape
  /// is the program's own bug: run_failed)
  outside_footprint,
  /// not run: the mutant changes a line the comparison rests on, so equal hashes would not be
  /// expected of a sound plan either: one feeding the printed hash (`snd::Hash h`, `h << ...`,
  /// `h.records(...)`; `h << argv` hashes an address each process has its own of) or the
  /// rotor::Session (without it the serial build cannot replay the recorded order)
  oracle_lines_changed,
};

const char* to_string(ExecOutcome o);

struct Execution {
  ExecOutcome outcome = ExecOutcome::no_recipe;
  std::string log; ///< the failing step's output, or compare.sh's report
};

class MutantExecutor {
public:
  explicit MutantExecutor(ExecConfig config);

  /// Builds `text` (a mutant of the corpus program named like `seed_path`) both ways and compares
  /// the runs in each mode.
  Execution execute(const std::string& seed_path, const std::string& text);

private:
  /// Whether `mutant` keeps the corpus program's (at `program`) hash and Session lines.
  static bool keeps_oracle_lines(const std::string& program, const std::string& mutant);
  /// One corpus program's build commands, with placeholders for the mutant's paths.
  struct Recipe {
    std::string serial_compile, serial_link, rotor_compile, rotor_link; ///< @SRC@, @OBJ@, @EXE@
    std::string program_dir; ///< where the corpus program is (its headers are next to it)
  };
  /// The recipe of corpus program `stem` (read once), or none when the build has no such program.
  const std::optional<Recipe>& recipe(const std::string& stem);
  std::optional<Recipe> read_recipe(const std::string& stem) const;
  /// Builds work/serial and work/rotor from `source`; false (and e.outcome) when a step fails.
  bool build(const Recipe& r, const std::filesystem::path& source, Execution& e) const;
  /// compare.sh in `mode` on the two builds; sets e.outcome and e.log.
  void compare(const std::string& mode, const std::filesystem::path& source, Execution& e) const;
  /// Runs `command` in the build tree for at most `timeout` seconds (exit status 124 past it);
  /// `log` gets the command and its output. Returns its exit status.
  int run_step(const std::string& name, const std::string& command, unsigned timeout,
               std::string& log) const;

  ExecConfig config_;
  std::string rotor_cc_;
  std::map<std::string, std::optional<Recipe>> recipes_;
};

} // namespace rotor_fuzz
