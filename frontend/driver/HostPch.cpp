#include "HostPch.h"

#include "Process.h"
#include "SourceFiles.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace rotor::driver {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t k_keep = 12; ///< PCHs kept in the cache (~100 MB each), the newest

/// `cmd` as found on PATH (or as given when it names a path), resolved through links.
std::string resolve_program(const std::string& cmd) {
  std::error_code ec;
  if (cmd.find('/') != std::string::npos) {
    return fs::canonical(cmd, ec).string();
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path p = fs::path(dir.empty() ? "." : dir) / cmd;
    if (access(p.c_str(), X_OK) == 0) {
      return fs::canonical(p, ec).string();
    }
  }
  return "";
}

/// GCC's PCH format is its own: only a compiler that is g++ gets one.
bool is_gcc(const std::string& resolved) {
  const std::string base = fs::path(resolved).filename().string();
  return base.find("g++") != std::string::npos && base.find("clang") == std::string::npos;
}

/// Whether `dir` has a `rotor` entry (so that `#include "rotor/..."` could find it there).
bool names_rotor_dir(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / "rotor", ec);
}

/// The compile's arguments that shape the PCH: everything but the compiler, sources, outputs,
/// dependency-file options, the mode (-c, -S, -E) and quote directories that cannot matter (so
/// that the files of every directory share one PCH).
std::vector<std::string> shaping_flags(const std::vector<std::string>& compile) {
  std::vector<std::string> flags;
  for (std::size_t i = 1; i < compile.size(); ++i) {
    const std::string& a = compile[i];
    if (a == "-o" || a == "-MF" || a == "-MT" || a == "-MQ" || a == "-x") {
      ++i;
    } else if (a == "-iquote" && i + 1 < compile.size() && !names_rotor_dir(compile[i + 1])) {
      ++i; // a quote directory without rotor/ cannot change what rotor.h includes
    } else if (a == "-c" || a == "-S" || a == "-E" || a == "-MD" || a == "-MMD" || a == "-MP" ||
               a == "-M" || a == "-MM" || is_cpp_source(a) || a.rfind("-MF", 0) == 0) {
      // not part of the header's meaning
    } else {
      flags.push_back(a);
    }
  }
  return flags;
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h = (h ^ c) * 1099511628211ULL;
  }
  return h;
}

/// "size mtime" of a file, or empty when it is gone.
std::string stamp(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return "";
  }
  return std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

/// The inputs of a make-style dependency file (`target: a b \ c`).
std::vector<std::string> dependency_paths(const std::string& depfile) {
  std::ifstream in(depfile);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto colon = text.find(": ");
  text = colon == std::string::npos ? "" : text.substr(colon + 2);
  std::vector<std::string> paths;
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    if (w != "\\") {
      paths.push_back(w);
    }
  }
  return paths;
}

/// Whether every input listed in `inputs_file` (a path line, then its stamp line) is unchanged.
bool inputs_unchanged(const std::string& inputs_file) {
  std::ifstream in(inputs_file);
  std::string path, was;
  int count = 0;
  while (std::getline(in, path) && std::getline(in, was)) {
    if (stamp(path) != was) {
      return false;
    }
    ++count;
  }
  return count > 0;
}

/// Keeps the `k_keep` newest PCH directories.
void prune(const std::string& cache_dir) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> dirs;
  for (const auto& e : fs::directory_iterator(cache_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("gcc-", 0) == 0 && name.find('.') == std::string::npos) {
      dirs.emplace_back(fs::last_write_time(e.path() / "inputs", ec), e.path());
    }
  }
  if (dirs.size() <= k_keep) {
    return;
  }
  std::sort(dirs.begin(), dirs.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = k_keep; i < dirs.size(); ++i) {
    fs::remove_all(dirs[i].second, ec);
  }
}

/// Builds the PCH directory `dir` (through a private temporary and a rename: concurrent
/// rotor-cc runs never see half of one). False when it cannot.
bool build_pch(const std::string& dir, const std::string& cxx,
               const std::vector<std::string>& flags, const std::string& rotor_header,
               bool verbose) {
  std::error_code ec;
  const fs::path tmp = dir + ".tmp." + std::to_string(getpid());
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp / "rotor", ec);
  // The PCH is made from a one-line file including rotor.h as the user's file does.
  std::ofstream(tmp / "prefix.h") << "#include <rotor/rotor.h>\n";
  std::vector<std::string> argv = {cxx};
  argv.insert(argv.end(), flags.begin(), flags.end());
  for (const std::string& a :
       {std::string("-x"), std::string("c++-header"), (tmp / "prefix.h").string(),
        std::string("-o"), (tmp / "rotor" / "rotor.h.gch").string(), std::string("-MD"),
        std::string("-MF"), (tmp / "deps").string()}) {
    argv.push_back(a);
  }
  const bool built = !ec && run_process(argv, verbose, (tmp / "log").string()) == 0;
  std::ofstream inputs(tmp / "inputs");
  for (const std::string& p :
       built ? dependency_paths((tmp / "deps").string()) : std::vector<std::string>{}) {
    if (p.rfind(tmp.string(), 0) != 0) { // prefix.h moves with the directory
      inputs << fs::absolute(p, ec).string() << "\n" << stamp(p) << "\n";
    }
  }
  inputs.close();
  fs::create_symlink(rotor_header, tmp / "rotor" / "rotor.h", ec);
  if (!built || ec || !inputs) {
    if (verbose) {
      std::cerr << "rotor-cc: no host PCH (see " << (tmp / "log").string() << ")\n";
    }
    return false;
  }
  if (inputs_unchanged(dir + "/inputs")) { // another rotor-cc made it meanwhile: keep that one
    fs::remove_all(tmp, ec);
    return true;
  }
  const fs::path old = dir + ".old." + std::to_string(getpid());
  fs::rename(dir, old, ec); // a stale one, if any
  fs::rename(tmp, dir, ec);
  fs::remove_all(old, ec);
  return !ec || fs::exists(fs::path(dir) / "rotor" / "rotor.h.gch");
}

} // namespace

std::string find_rotor_header(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string dir;
    for (const char* opt : {"-I", "-isystem"}) {
      const std::string o(opt);
      if (args[i] == o && i + 1 < args.size()) {
        dir = args[i + 1];
      } else if (args[i].size() > o.size() && args[i].compare(0, o.size(), o) == 0) {
        dir = args[i].substr(o.size());
      }
    }
    const std::string header = dir + "/rotor/rotor.h";
    if (!dir.empty() && access(header.c_str(), R_OK) == 0) {
      std::error_code ec;
      return fs::canonical(header, ec).string();
    }
  }
  return "";
}

std::vector<std::string> host_pch_args(const std::string& cache_dir,
                                       const std::vector<std::string>& compile,
                                       const std::string& rotor_header, bool verbose) {
  if (cache_dir.empty() || compile.empty() || rotor_header.empty()) {
    return {};
  }
  const std::string cxx = resolve_program(compile[0]);
  if (cxx.empty() || !is_gcc(cxx)) {
    return {};
  }
  const std::vector<std::string> flags = shaping_flags(compile);
  std::string key_text = cxx + '\0' + stamp(cxx) + '\0' + rotor_header;
  for (const std::string& f : flags) {
    key_text += '\0' + f;
  }
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(fnv1a(key_text)));
  const std::string dir = cache_dir + "/gcc-" + key;
  std::error_code ec;
  fs::create_directories(cache_dir, ec);
  if (!inputs_unchanged(dir + "/inputs")) {
    if (!build_pch(dir, cxx, flags, rotor_header, verbose)) {
      return {};
    }
    prune(cache_dir);
  }
  return {"-I" + dir}; // -I: GCC does not take a PCH from a -isystem directory
}

namespace {

/// The dependency file a compile writes: `-MF FILE`, else `-o` with its extension made `.d`
/// (GCC's rule for `-MD`); empty when it writes none.
std::string depfile_of(const std::vector<std::string>& compile) {
  bool writes = false;
  std::string mf, out;
  for (std::size_t i = 0; i < compile.size(); ++i) {
    const std::string& a = compile[i];
    writes = writes || a == "-MD" || a == "-MMD";
    if (a == "-MF" && i + 1 < compile.size()) {
      mf = compile[i + 1];
    } else if (a.size() > 3 && a.compare(0, 3, "-MF") == 0) {
      mf = a.substr(3);
    } else if (a == "-o" && i + 1 < compile.size()) {
      out = compile[i + 1];
    }
  }
  if (!writes) {
    return "";
  }
  if (!mf.empty() || out.empty()) {
    return mf;
  }
  return fs::path(out).replace_extension(".d").string();
}

/// The headers listed in a PCH directory's `inputs` file (path lines, each followed by a stamp).
std::vector<std::string> pch_inputs(const std::string& inputs_file) {
  std::ifstream in(inputs_file);
  std::vector<std::string> paths;
  std::string path, stamp_line;
  while (std::getline(in, path) && std::getline(in, stamp_line)) {
    paths.push_back(path);
  }
  return paths;
}

} // namespace

bool add_pch_inputs_to_depfile(const std::vector<std::string>& compile,
                               const std::vector<std::string>& pch_args) {
  const std::string depfile = depfile_of(compile);
  if (depfile.empty() || pch_args.empty() || pch_args[0].compare(0, 2, "-I") != 0) {
    return true;
  }
  const std::vector<std::string> inputs = pch_inputs(pch_args[0].substr(2) + "/inputs");
  std::ifstream in(depfile);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (!in || text.find(':') == std::string::npos) {
    return false;
  }
  // The first rule ends at the first newline not escaped by a backslash.
  std::size_t end = 0;
  while ((end = text.find('\n', end)) != std::string::npos && end > 0 && text[end - 1] == '\\') {
    ++end;
  }
  std::string extra;
  for (std::string h : inputs) {
    for (std::size_t at = 0; (at = h.find(' ', at)) != std::string::npos; at += 2) {
      h.insert(at, "\\"); // make's escape for a space in a path
    }
    extra += " \\\n " + h;
  }
  text.insert(end == std::string::npos ? text.size() : end, extra);
  std::ofstream outf(depfile, std::ios::trunc);
  outf << text;
  return static_cast<bool>(outf);
}

} // namespace rotor::driver
