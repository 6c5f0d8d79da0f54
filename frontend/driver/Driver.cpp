#include "Driver.h"

#include "DeviceCompile.h"
#include "DriverConfig.h"
#include "HostPch.h"
#include "IsaVariants.h"
#include "Process.h"
#include "SourceFiles.h"
#include "rotor/frontend/Explain.h"
#include "rotor/frontend/Frontend.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace rotor::driver {
namespace {

enum class Explain { none, text, json, html };

struct Command {
  Explain explain = Explain::none;
  std::string explain_file; ///< --explain=html:FILE (empty: stdout)
  std::string emit_source;
  bool verbose = false;
  bool device_gpu = false;             ///< --device=gpu: every annotated loop is a device loop
  std::string host;                    ///< launcher mode: the compiler CMake passed
  std::vector<std::string> args;       ///< everything for the host compiler
  std::vector<std::size_t> sources;    ///< indexes into args of C++ source files
  std::vector<std::string> parse_args; ///< the subset that matters for parsing
  bool links = true;                   ///< no -c / -S / -E
  std::string output;                  ///< -o
};

bool takes_value(const std::string& a) {
  for (const char* o : {"-o",
                        "-I",
                        "-D",
                        "-U",
                        "-include",
                        "-isystem",
                        "-iquote",
                        "-idirafter",
                        "-imacros",
                        "-x",
                        "-MF",
                        "-MT",
                        "-MQ",
                        "-L",
                        "-Xlinker",
                        "-Xassembler",
                        "-Xpreprocessor",
                        "-isysroot",
                        "--sysroot",
                        "-T",
                        "-u",
                        "-z"}) {
    if (a == o) {
      return true;
    }
  }
  return false;
}

bool is_executable(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

/// CMake's compiler-launcher form: the first argument is the compiler itself.
bool looks_like_compiler(const std::string& a) {
  if (a.empty() || a[0] == '-' || is_cpp_source(a)) {
    return false;
  }
  const std::string base =
      a.substr(a.find_last_of('/') == std::string::npos ? 0 : a.find_last_of('/') + 1);
  const bool named = base.find("++") != std::string::npos || base == "cc" || base == "gcc" ||
                     base == "clang" || base.rfind("g++", 0) == 0;
  return named && (a.find('/') == std::string::npos || is_executable(a));
}

void usage(std::ostream& os) {
  os << "usage: rotor-cc [rotor options] <compiler arguments>\n"
        "  rotor-cc -O2 prog.cpp -o prog        analyse, rewrite, compile and link\n"
        "  rotor-cc --emit-source=out.cpp prog.cpp  write the rewritten source\n"
        "  rotor-cc --explain prog.cpp          report the plan of every annotated loop\n"
        "  rotor-cc --explain=json prog.cpp     the same as JSON\n"
        "  rotor-cc --explain=html:r.html prog.cpp  the same as one HTML page (stdout without "
        ":FILE)\n"
        "rotor options: --explain[=text|json|html|html:FILE] --emit-source=FILE --device=gpu|cpu "
        "-v "
        "--help\n"
        "Every other argument goes to the host compiler.\n";
}

int parse_command(const std::vector<std::string>& in, Command& cmd) {
  std::size_t start = 0;
  if (!in.empty() && looks_like_compiler(in[0])) {
    cmd.host = in[0];
    start = 1;
  }
  for (std::size_t i = start; i < in.size(); ++i) {
    const std::string& a = in[i];
    if (a == "--explain" || a == "--explain=text") {
      cmd.explain = Explain::text;
    } else if (a == "--explain=json") {
      cmd.explain = Explain::json;
    } else if (a == "--explain=html" || a.rfind("--explain=html:", 0) == 0) {
      cmd.explain = Explain::html;
      cmd.explain_file = a.size() > 15 ? a.substr(15) : "";
      if (a.size() == 15) {
        std::cerr << "rotor-cc: error: --explain=html: needs a file name\n";
        return 2;
      }
    } else if (a.rfind("--explain=", 0) == 0) {
      std::cerr << "rotor-cc: error: unknown report '" << a.substr(10)
                << "' (use --explain, --explain=json or --explain=html[:FILE])\n";
      return 2;
    } else if (a.rfind("--emit-source=", 0) == 0) {
      cmd.emit_source = a.substr(14);
      if (cmd.emit_source.empty()) {
        std::cerr << "rotor-cc: error: --emit-source= needs a file name\n";
        return 2;
      }
    } else if (a == "--device=gpu" || a == "--device=cpu") {
      cmd.device_gpu = a == "--device=gpu";
    } else if (a.rfind("--device", 0) == 0) {
      std::cerr << "rotor-cc: error: unknown device in '" << a
                << "' (use --device=gpu or --device=cpu)\n";
      return 2;
    } else if (a == "-v" || a == "--verbose") {
      cmd.verbose = true;
    } else if (a == "--help" || a == "-h") {
      usage(std::cout);
      return 0;
    } else {
      const bool separate = takes_value(a) && i + 1 < in.size();
      cmd.args.push_back(a);
      if (a == "-c" || a == "-S" || a == "-E" || a == "-fsyntax-only") {
        cmd.links = false;
      }
      const bool parse_flag = a.rfind("-I", 0) == 0 || a.rfind("-D", 0) == 0 ||
                              a.rfind("-U", 0) == 0 || a.rfind("-std=", 0) == 0 ||
                              a.rfind("-isystem", 0) == 0 || a.rfind("-iquote", 0) == 0 ||
                              a.rfind("-idirafter", 0) == 0 || a == "-include" || a == "-imacros" ||
                              a == "-pthread" || a == "-fopenmp";
      if (parse_flag) {
        cmd.parse_args.push_back(a);
      }
      if (separate) {
        cmd.args.push_back(in[++i]);
        if (parse_flag) {
          cmd.parse_args.push_back(in[i]);
        }
        if (a == "-o") {
          cmd.output = in[i];
        }
      } else if (!a.empty() && a[0] != '-' && is_cpp_source(a)) {
        cmd.sources.push_back(cmd.args.size() - 1);
      }
    }
  }
  return -1;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

std::string base_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

/// A fresh private directory for rewritten sources that have no object file to sit next to.
std::string temp_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/rotor-cc-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    return "";
  }
  return buf.data();
}

/// Where rotor-cc keeps its precompiled rotor.h (frontend/src/HeaderCache.h): $ROTOR_CC_CACHE_DIR,
/// else $XDG_CACHE_HOME/rotor-cc, else ~/.cache/rotor-cc; none when ROTOR_CC_PCH=0.
std::string pch_cache_dir() {
  const char* off = std::getenv("ROTOR_CC_PCH");
  if (off != nullptr && std::string(off) == "0") {
    return "";
  }
  if (const char* dir = std::getenv("ROTOR_CC_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    return std::string(xdg) + "/rotor-cc";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    return std::string(home) + "/.cache/rotor-cc";
  }
  return "";
}

/// The last `-std=` (or `-ansi`) of the command when it names a C++ standard older than C++17
/// (which Rotor's headers need); empty otherwise. rotor-cc does not raise it: older code may rely
/// on what C++17 removed (auto_ptr, `register`, dynamic exception specifications).
std::string too_old_standard(const std::vector<std::string>& args) {
  std::string standard;
  for (const std::string& a : args) {
    if (a.rfind("-std=", 0) == 0 || a.rfind("--std=", 0) == 0) {
      standard = a;
    } else if (a == "-ansi") { // GCC and Clang: -std=c++98 for C++
      standard = "-ansi";
    }
  }
  if (standard == "-ansi") {
    return standard;
  }
  const std::string value = standard.substr(standard.find('=') + 1);
  for (const char* old : {"c++98", "c++03", "c++0x", "c++11", "c++1y", "c++14", "gnu++98",
                          "gnu++03", "gnu++0x", "gnu++11", "gnu++1y", "gnu++14"}) {
    if (!standard.empty() && value == old) {
      return standard;
    }
  }
  return "";
}

void print(const std::vector<frontend::Diagnostic>& diags) {
  for (const auto& d : diags) {
    std::cerr << frontend::format(d);
  }
}

/// Rejects commands rotor-cc cannot serve; -1 when the command is fine, else the exit code.
int check_command(const Command& cmd) {
  if (const std::string old = too_old_standard(cmd.args); !old.empty() && !cmd.sources.empty()) {
    std::cerr << "rotor-cc: error: Rotor needs C++17 or newer, but this command asks for " << old
              << " (use -std=c++17 or later, or leave -std out)\n";
    return 2;
  }
  if (cmd.sources.empty() && cmd.explain != Explain::none) {
    std::cerr << "rotor-cc: error: no C++ source file to explain\n";
    return 2;
  }
  if (cmd.args.empty()) {
    usage(std::cerr);
    return 2;
  }
  return -1;
}

frontend::Options frontend_options(const Command& cmd, const DriverConfig& config) {
  frontend::Options options;
  options.clang_args = cmd.parse_args;
  options.clang_args.insert(options.clang_args.end(), config.compile.begin(), config.compile.end());
  options.rewrite = cmd.explain == Explain::none;
  options.pch_cache_dir = pch_cache_dir();
  options.device_gpu = cmd.device_gpu;
  for (std::size_t index : cmd.sources) {
    options.program_sources.push_back(cmd.args[index]);
  }
  return options;
}

/// What analysing the command's sources produced: every loop, and the host compiler's arguments
/// with each changed source replaced by its rewritten copy (kept in `tmp` unless it sits next to
/// the object file).
struct Analysed {
  std::vector<frontend::LoopResult> loops;
  std::vector<std::string> replaced;
  std::string tmp;
  bool includes_rotor = false; ///< some source includes rotor/rotor.h (host PCH, HostPch.h)
  std::vector<std::size_t> device_sources; ///< indexes into args of sources nvcc compiles
  int rc = -1;                             ///< -1: go on; else the exit code
};

/// Where the rewritten copy of `src` goes; empty when no temporary directory can be made.
std::string rewritten_path(const Command& cmd, const std::string& src, std::string& tmp) {
  if (!cmd.output.empty() && !cmd.links && cmd.sources.size() == 1) {
    return cmd.output + ".rotor.cpp";
  }
  if (tmp.empty()) {
    tmp = temp_dir();
    if (tmp.empty()) {
      std::cerr << "rotor-cc: error: cannot create a temporary directory\n";
      return "";
    }
  }
  return tmp + "/" + base_of(src);
}

/// Writes `r`'s rewritten source where --emit-source asked and where the host compiler reads it;
/// false (after the error line) when a file cannot be written.
bool place_rewritten(const Command& cmd, std::size_t index, const frontend::FileResult& r,
                     Analysed& out) {
  const std::string& src = cmd.args[index];
  if (!cmd.emit_source.empty()) {
    const std::string target =
        cmd.sources.size() == 1 ? cmd.emit_source : dir_of(cmd.emit_source) + "/" + base_of(src);
    if (!write_file(target, r.rewritten)) {
      std::cerr << "rotor-cc: error: cannot write '" << target << "'\n";
      return false;
    }
  }
  if (!r.changed) {
    return true;
  }
  const std::string path = rewritten_path(cmd, src, out.tmp);
  if (path.empty()) {
    return false;
  }
  if (!write_file(path, r.rewritten)) {
    std::cerr << "rotor-cc: error: cannot write '" << path << "'\n";
    return false;
  }
  out.replaced[index] = path;
  out.replaced.push_back("-iquote");
  out.replaced.push_back(dir_of(src));
  return true;
}

Analysed analyse_sources(const Command& cmd, const frontend::Options& options) {
  Analysed out;
  out.replaced = cmd.args;
  bool failed = false;
  for (std::size_t index : cmd.sources) {
    const std::string& src = cmd.args[index];
    frontend::FileResult r = frontend::process_file(src, options);
    print(r.diagnostics);
    if (!r.ok) {
      if (r.diagnostics.empty()) {
        std::cerr << src << ":1:1: error: rotor-cc could not parse this file\n";
      }
      failed = true;
      continue;
    }
    for (auto& l : r.loops) {
      out.loops.push_back(std::move(l));
    }
    if (cmd.explain != Explain::none) {
      continue;
    }
    print(r.remarks);
    out.includes_rotor =
        out.includes_rotor || r.rewritten.find("rotor/rotor.h") != std::string::npos;
    if (r.changed && has_device_body(r.rewritten)) {
      out.device_sources.push_back(index);
    }
    if (!place_rewritten(cmd, index, r, out)) {
      out.rc = 2;
      return out;
    }
  }
  if (failed) {
    out.rc = 1;
  }
  return out;
}

int write_report(const Command& cmd, const std::vector<frontend::LoopResult>& loops) {
  if (cmd.explain == Explain::json) {
    std::cout << frontend::explain_json(loops);
    return 0;
  }
  if (cmd.explain == Explain::text) {
    std::cout << frontend::explain_text(loops);
    return 0;
  }
  std::string title = "rotor-cc --explain:";
  for (std::size_t index : cmd.sources) {
    title += " " + cmd.args[index];
  }
  const std::string page = frontend::explain_html(loops, title);
  if (cmd.explain_file.empty()) {
    std::cout << page;
  } else if (!write_file(cmd.explain_file, page)) {
    std::cerr << "rotor-cc: error: cannot write '" << cmd.explain_file << "'\n";
    return 2;
  }
  return 0;
}

/// Compiles the sources with device loops with nvcc (DeviceCompile.h) and puts each object in
/// the place of its source in `compile` (the host command); removes the source where the host
/// compiler only compiles. Returns -1, or the exit code of a failed step.
int compile_device_sources(const Command& cmd, const DriverConfig& config, const Analysed& analysed,
                           std::vector<std::string>& compile, std::string& tmp) {
  if (analysed.device_sources.empty()) {
    return -1;
  }
  if (config.nvcc.empty()) {
    if (!cmd.device_gpu) {
      return -1; // device(gpu) pragmas without nvcc: the host compiler, loops on CPU workers
    }
    std::cerr << "rotor-cc: error: --device=gpu needs nvcc, but " << config.path
              << " names none (configure Rotor with -DROTOR_CUDA=ON)\n";
    return 2;
  }
  std::vector<std::size_t> positions;
  for (std::size_t index : cmd.sources) {
    positions.push_back(index + 1); // compile[0] is the compiler
  }
  for (std::size_t index : analysed.device_sources) {
    const std::string& source = compile[index + 1];
    std::string object = cmd.output;
    if (cmd.links || cmd.sources.size() != 1 || cmd.output.empty()) {
      if (tmp.empty() && (tmp = temp_dir()).empty()) {
        std::cerr << "rotor-cc: error: cannot create a temporary directory\n";
        return 2;
      }
      object = tmp + "/" + base_of(source) + ".o";
    }
    const std::vector<std::string> nvcc = nvcc_command(compile, positions, source, object, config);
    if (const int rc = run_process(nvcc, cmd.verbose); rc != 0) {
      return rc;
    }
    compile[index + 1] = cmd.links ? object : "";
  }
  compile.erase(std::remove(compile.begin(), compile.end(), std::string()), compile.end());
  return -1;
}

/// Runs the host compiler on the rewritten command (one build per ISA level where asked; with a
/// precompiled rotor.h where a source includes it, HostPch.h); sources with device loops go
/// through nvcc first.
int compile_and_link(const Command& cmd, const DriverConfig& config, Analysed& analysed) {
  std::vector<std::string> compile = {cmd.host.empty() ? config.cxx : cmd.host};
  compile.insert(compile.end(), analysed.replaced.begin(), analysed.replaced.end());
  compile.insert(compile.end(), config.compile.begin(), config.compile.end());
  if (const int rc = compile_device_sources(cmd, config, analysed, compile, analysed.tmp);
      rc >= 0) {
    return rc;
  }
  const bool nvcc_used = !config.nvcc.empty() && !analysed.device_sources.empty();
  const bool device = nvcc_used || cmd.device_gpu;
  if (nvcc_used && !cmd.links && analysed.device_sources.size() == cmd.sources.size()) {
    return 0; // nvcc compiled every source: nothing left for the host compiler
  }
  if (cmd.links && device && !config.nvcc.empty()) {
    compile.insert(compile.end(), config.cuda_link.begin(), config.cuda_link.end());
  }
  // Only a command that compiles sources gets per-level builds: objects alone would just be
  // linked three times as they are.
  const bool variants = cmd.links && cmd.host.empty() && !cmd.sources.empty() && !nvcc_used &&
                        wants_isa_variants(cmd.args, config);
  std::vector<std::string> pch;
  if (!cmd.links && analysed.includes_rotor) {
    pch = host_pch_args(pch_cache_dir(), compile, find_rotor_header(config.compile), cmd.verbose);
    compile.insert(compile.begin() + 1, pch.begin(), pch.end());
  }
  if (cmd.links && cmd.host.empty()) {
    compile.insert(compile.end(), config.link.begin(), config.link.end());
  }
  const int rc = variants ? link_isa_variants(compile, cmd.output, config, cmd.verbose, run_process)
                          : run_process(compile, cmd.verbose);
  if (rc == 0 && !pch.empty() && !add_pch_inputs_to_depfile(compile, pch)) {
    std::cerr << "rotor-cc: warning: could not add Rotor's headers to the dependency file\n";
  }
  return rc;
}

void remove_rewritten(const Command& cmd, const Analysed& analysed) {
  if (analysed.tmp.empty() || std::getenv("ROTOR_CC_KEEP") != nullptr) {
    return;
  }
  for (std::size_t index : cmd.sources) {
    const std::string& path = analysed.replaced[index];
    if (path != cmd.args[index] && path.rfind(analysed.tmp, 0) == 0) {
      std::remove(path.c_str());
    }
  }
  for (std::size_t index : analysed.device_sources) { // nvcc's objects, where it ran
    std::remove((analysed.tmp + "/" + base_of(analysed.replaced[index]) + ".o").c_str());
  }
  rmdir(analysed.tmp.c_str());
}

} // namespace

int run_driver(const std::vector<std::string>& args, const std::string& argv0) {
  Command cmd;
  if (const int rc = parse_command(args, cmd); rc >= 0) {
    return rc;
  }
  if (const int rc = check_command(cmd); rc >= 0) {
    return rc;
  }
  DriverConfig config;
  std::string config_error;
  if (!load_config(argv0, config, config_error)) {
    std::cerr << "rotor-cc: error: " << config_error << "\n";
    return 2;
  }
  if (cmd.verbose) {
    std::cerr << "rotor-cc: configuration " << config.path << "\n";
  }
  Analysed analysed = analyse_sources(cmd, frontend_options(cmd, config));
  if (analysed.rc >= 0) {
    remove_rewritten(cmd, analysed);
    return analysed.rc;
  }
  if (cmd.explain != Explain::none) {
    return write_report(cmd, analysed.loops);
  }
  if (!cmd.emit_source.empty() && cmd.output.empty() && cmd.links) {
    remove_rewritten(cmd, analysed);
    return 0; // only the rewritten source was asked for
  }
  const int rc = compile_and_link(cmd, config, analysed);
  remove_rewritten(cmd, analysed);
  return rc;
}

} // namespace rotor::driver
