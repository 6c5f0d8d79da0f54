#include "MutantExecutor.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/wait.h>

namespace rotor_fuzz {
namespace fs = std::filesystem;

namespace {

/// Single-quotes `s` for sh.
std::string sh_quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

/// Replaces every `from` in `s` by `to`; false when there was none.
bool replace_all(std::string& s, const std::string& from, const std::string& to) {
  bool found = false;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
    found = true;
  }
  return found;
}

/// What `command` prints on stdout (stderr dropped), or "" when it fails.
std::string output_of(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) {
    return out;
  }
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) {
    out.append(buf.data(), n);
  }
  return pclose(p) == 0 ? out : std::string();
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The lines of `text` the oracle's comparison rests on, in order: those that feed the corpus
/// program's printed hash (soundness.h's `snd::Hash h`) and the rotor::Session line (without it
/// the serial build cannot replay the recorded order).
std::vector<std::string> oracle_lines(const std::string& text) {
  static const std::regex oracle_line(R"((^|[^A-Za-z0-9_])(h\s*(<<|\.)|snd::Hash|rotor::Session))");
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, oracle_line)) {
      lines.push_back(line);
    }
  }
  return lines;
}

int exit_status(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

} // namespace

const char* to_string(ExecOutcome o) {
  switch (o) {
  case ExecOutcome::no_recipe:
    return "no_recipe";
  case ExecOutcome::build_failed:
    return "build_failed";
  case ExecOutcome::timed_out:
    return "timed_out";
  case ExecOutcome::run_failed:
    return "run_failed";
  case ExecOutcome::equal:
    return "equal";
  case ExecOutcome::differing:
    return "differing";
  case ExecOutcome::outside_footprint:
    return "outside_footprint";
  case ExecOutcome::oracle_lines_changed:
    return "oracle_lines_changed";
  }
  return "?";
}

MutantExecutor::MutantExecutor(ExecConfig config) : config_(std::move(config)) {
  config_.build_dir = fs::absolute(config_.build_dir).string();
  config_.work_dir = fs::absolute(config_.work_dir).string();
  rotor_cc_ = config_.build_dir + "/frontend/rotor-cc";
  fs::create_directories(config_.work_dir);
}

std::optional<MutantExecutor::Recipe> MutantExecutor::read_recipe(const std::string& stem) const {
  Recipe r;
  // The corpus's targets (tests/soundness/CMakeLists.txt): soundness_<name>[_serial]. The compile
  // command ends with `-c <the program's source>`.
  auto commands = [&](const std::string& target, std::string& compile, std::string& link) {
    const std::string exe = "tests/soundness/" + target;
    const std::string obj =
        "tests/soundness/CMakeFiles/" + target + ".dir/programs/" + stem + ".cpp.o";
    const std::string ninja =
        sh_quoted(config_.ninja) + " -C " + sh_quoted(config_.build_dir) + " -t commands -s ";
    compile = output_of(ninja + sh_quoted(obj));
    link = output_of(ninja + sh_quoted(exe));
    while (!compile.empty() && (compile.back() == '\n' || compile.back() == ' ')) {
      compile.pop_back();
    }
    const std::size_t at = compile.rfind(" -c ");
    if (at == std::string::npos) {
      return false;
    }
    r.program_dir = fs::path(compile.substr(at + 4)).parent_path().string();
    // The rotor build checks every DistArray access against its worker's block (AccessCheck.h):
    // a plan whose footprint is wrong stops there instead of racing only sometimes.
    compile = compile.substr(0, at) +
              (target.size() > 7 && target.compare(target.size() - 7, 7, "_serial") == 0
                   ? ""
                   : " -DROTOR_CHECK_ACCESS") +
              " -c @SRC@";
    return replace_all(compile, obj, "@OBJ@") && replace_all(link, obj, "@OBJ@") &&
           replace_all(link, "-o " + exe + " ", "-o @EXE@ ");
  };
  if (!commands("soundness_" + stem + "_serial", r.serial_compile, r.serial_link) ||
      !commands("soundness_" + stem, r.rotor_compile, r.rotor_link)) {
    return std::nullopt;
  }
  return r;
}

const std::optional<MutantExecutor::Recipe>& MutantExecutor::recipe(const std::string& stem) {
  auto it = recipes_.find(stem);
  if (it == recipes_.end()) {
    it = recipes_.emplace(stem, read_recipe(stem)).first;
  }
  return it->second;
}

int MutantExecutor::run_step(const std::string& name, const std::string& command, unsigned timeout,
                             std::string& log) const {
  const fs::path script = fs::path(config_.work_dir) / (name + ".sh");
  const fs::path out = fs::path(config_.work_dir) / (name + ".log");
  std::ofstream(script) << command << "\n";
  const std::string line = "cd " + sh_quoted(config_.build_dir) + " && timeout -k 5 " +
                           std::to_string(timeout) + " sh " + sh_quoted(script.string()) + " >" +
                           sh_quoted(out.string()) + " 2>&1";
  const int rc = exit_status(std::system(line.c_str()));
  log = "$ " + command + "\n" + read_text(out);
  return rc;
}

Execution MutantExecutor::execute(const std::string& seed_path, const std::string& text) {
  Execution e;
  const fs::path work(config_.work_dir);
  const fs::path source = work / fs::path(seed_path).filename();
  const std::optional<Recipe>& r = recipe(source.stem().string());
  if (!r) {
    return e;
  }
  if (!keeps_oracle_lines((fs::path(r->program_dir) / source.filename()).string(), text)) {
    e.outcome = ExecOutcome::oracle_lines_changed;
    return e;
  }
  // The mutant sits in the work directory under the seed's name, next to links to the corpus's
  // headers (its programs include "soundness.h" from their own directory).
  std::ofstream(source, std::ios::binary) << text;
  for (const auto& entry : fs::directory_iterator(r->program_dir)) {
    const fs::path link = work / entry.path().filename();
    if (entry.path().extension() == ".h" && !fs::exists(fs::symlink_status(link))) {
      fs::create_symlink(entry.path(), link);
    }
  }
  if (!build(*r, source, e)) {
    return e;
  }
  for (const std::string& mode : config_.modes) {
    compare(mode, source, e);
    if (e.outcome != ExecOutcome::equal) {
      break;
    }
  }
  return e;
}

bool MutantExecutor::keeps_oracle_lines(const std::string& program, const std::string& mutant) {
  return oracle_lines(read_text(program)) == oracle_lines(mutant);
}

bool MutantExecutor::build(const Recipe& r, const fs::path& source, Execution& e) const {
  const fs::path work(config_.work_dir);
  const std::array<std::array<std::string, 3>, 2> builds = {
      {{"serial", r.serial_compile, r.serial_link}, {"rotor", r.rotor_compile, r.rotor_link}}};
  for (const auto& [name, compile_template, link_template] : builds) {
    std::string compile = compile_template, link = link_template;
    const std::string obj = (work / (name + ".o")).string();
    replace_all(compile, "@SRC@", source.string());
    replace_all(compile, "@OBJ@", obj);
    replace_all(link, "@OBJ@", obj);
    replace_all(link, "@EXE@", (work / name).string());
    for (const auto& [step, command] : {std::pair{"compile", compile}, std::pair{"link", link}}) {
      const int rc = run_step(name + "_" + step, command, config_.timeout, e.log);
      if (rc != 0) {
        e.outcome = rc == 124 || rc == 137 ? ExecOutcome::timed_out : ExecOutcome::build_failed;
        return false;
      }
    }
  }
  return true;
}

void MutantExecutor::compare(const std::string& mode, const fs::path& source, Execution& e) const {
  const fs::path work(config_.work_dir);
  std::string command = "ROTOR_COMPARE_TIMEOUT=" + std::to_string(config_.timeout) + " " +
                        sh_quoted(config_.compare) + " " + mode + " " +
                        sh_quoted((work / "serial").string()) + " " +
                        sh_quoted((work / "rotor").string()) + " " + sh_quoted(source.string()) +
                        " " + sh_quoted(rotor_cc_);
  if (mode == "mpi2") {
    command += " " + config_.mpi_launcher;
  }
  // compare.sh's exit status: 0 equal, 1 different hashes, 3 a run failed, 4 a run timed out
  // (each of its two runs has the timeout; 124 here: compare.sh itself was stopped).
  switch (run_step("compare_" + mode, command, 2 * config_.timeout + 30, e.log)) {
  case 0:
    e.outcome = ExecOutcome::equal;
    break;
  case 1:
    e.outcome = ExecOutcome::differing;
    break;
  case 4:
  case 124:
    e.outcome = ExecOutcome::timed_out;
    break;
  default:
    // A checked access outside the worker's block but inside the array's shape is the plan's
    // fault; outside the shape it is the program's (CellGuard.cpp says which).
    e.outcome = e.log.find("rotor: access check failed") != std::string::npos &&
                        e.log.find("the program indexes past the array") == std::string::npos
                    ? ExecOutcome::outside_footprint
                    : ExecOutcome::run_failed;
    break;
  }
}

} // namespace rotor_fuzz
