#include "Process.h"

#include <fcntl.h>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace rotor::driver {

int run_process(const std::vector<std::string>& argv, bool verbose, const std::string& log) {
  if (verbose) {
    std::string line;
    for (const auto& a : argv) {
      line += (line.empty() ? "" : " ") + a;
    }
    std::cerr << "rotor-cc: " << line << (log.empty() ? "" : " >" + log + " 2>&1") << "\n";
  }
  std::vector<char*> cargs;
  for (const auto& a : argv) {
    cargs.push_back(const_cast<char*>(a.c_str()));
  }
  cargs.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::cerr << "rotor-cc: error: cannot start '" << argv[0] << "'\n";
    return 2;
  }
  if (pid == 0) {
    if (!log.empty()) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
      }
    }
    execvp(cargs[0], cargs.data());
    std::cerr << "rotor-cc: error: cannot run '" << argv[0] << "'\n";
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status);
  }
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int run_process(const std::vector<std::string>& argv, bool verbose) {
  return run_process(argv, verbose, "");
}

} // namespace rotor::driver
