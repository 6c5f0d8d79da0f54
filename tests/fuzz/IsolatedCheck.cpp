#include "IsolatedCheck.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace rotor_fuzz {
namespace {

/// The result as text through the pipe: "parsed loops parallel data_parallel failures\n", then
/// each failure as "<length>\n<text>".
std::string serialise(const OracleResult& r) {
  std::string s = std::to_string(r.parsed ? 1 : 0) + " " + std::to_string(r.loops) + " " +
                  std::to_string(r.parallel_loops) + " " + std::to_string(r.data_parallel_loops) +
                  " " + std::to_string(r.failures.size()) + "\n";
  for (const std::string& f : r.failures) {
    s += std::to_string(f.size()) + "\n" + f;
  }
  return s;
}

bool deserialise(const std::string& s, OracleResult& r) {
  int parsed = 0;
  std::size_t failures = 0;
  int used = 0;
  if (std::sscanf(s.c_str(), "%d %d %d %d %zu\n%n", &parsed, &r.loops, &r.parallel_loops,
                  &r.data_parallel_loops, &failures, &used) != 5) {
    return false;
  }
  r.parsed = parsed != 0;
  std::size_t at = static_cast<std::size_t>(used);
  for (std::size_t i = 0; i < failures; ++i) {
    const std::size_t eol = s.find('\n', at);
    if (eol == std::string::npos) {
      return false;
    }
    const std::size_t length = std::stoul(s.substr(at, eol - at));
    if (eol + 1 + length > s.size()) {
      return false;
    }
    r.failures.push_back(s.substr(eol + 1, length));
    at = eol + 1 + length;
  }
  return true;
}

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) {
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) {
      return s;
    }
    s.append(buf, static_cast<std::size_t>(n));
  }
}

} // namespace

IsolatedResult check_isolated(const std::string& code, const std::string& name,
                              const rotor::frontend::Options& options, std::uint64_t seed,
                              bool quiet, unsigned timeout_seconds) {
  IsolatedResult out;
  int fds[2];
  if (::pipe(fds) != 0) {
    out.result = check_source(code, name, options, seed, quiet); // no child: in-process
    return out;
  }
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    ::alarm(timeout_seconds); // SIGALRM ends the child: a hang
    write_all(fds[1], serialise(check_source(code, name, options, seed, quiet)));
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(0);
  }
  ::close(fds[1]);
  const std::string text = child > 0 ? read_all(fds[0]) : std::string();
  ::close(fds[0]);
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child) {
    out.result = check_source(code, name, options, seed, quiet);
    return out;
  }
  if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
    out.outcome = out.signal == SIGALRM ? IsolatedResult::Outcome::timed_out
                                        : IsolatedResult::Outcome::crashed;
    return out;
  }
  if (WEXITSTATUS(status) != 0 || !deserialise(text, out.result)) {
    out.outcome = IsolatedResult::Outcome::crashed;
  }
  return out;
}

bool clang_crashes_too(const std::string& clangxx, const std::string& path,
                       const rotor::frontend::Options& options, unsigned timeout_seconds) {
  if (clangxx.empty()) {
    return false;
  }
  // As the frontend parses (Frontend.cpp, parse_args): C++17 unless the arguments say otherwise.
  std::vector<std::string> args = {clangxx, "-fsyntax-only", "-std=c++17"};
  args.insert(args.end(), options.clang_args.begin(), options.clang_args.end());
  args.push_back(path);
  const std::string log = path + ".clang.log";
  const pid_t child = ::fork();
  if (child == 0) {
    std::vector<char*> argv;
    for (std::string& a : args) {
      argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    std::freopen("/dev/null", "w", stdout);
    std::freopen(log.c_str(), "w", stderr);
    ::alarm(timeout_seconds);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child) {
    return false;
  }
  // A stack overflow kills the driver (cc1 runs in its process); other crashes are reported by
  // the driver's crash recovery ("PLEASE submit a bug report") with a non-zero exit status.
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(log.c_str());
  if (WIFSIGNALED(status)) {
    return WTERMSIG(status) != SIGALRM;
  }
  return text.find("PLEASE submit a bug report") != std::string::npos;
}

} // namespace rotor_fuzz
