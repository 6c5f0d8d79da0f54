/// Serial code's file writes under mpirun land once (docs/user/running.md, "Output under mpirun").
///
/// Serial code runs on every rank, so `std::ofstream out("model.txt")` or `fopen("model.txt",
/// "w")` would write the same file once per rank, concurrently. Once a session with more than one
/// rank has started, every rank but 0 writes such files to a private shadow file instead (in
/// $TMPDIR, removed at exit), and its later opens of the same path (as written) read the shadow:
/// the program writes each file once, from rank 0, and each rank still reads back what it wrote.
///
/// How: this file defines `fopen` and `fopen64` for the whole process (an executable's own
/// definitions come before libc's, and libstdc++'s file streams open through `fopen64`). They call
/// the next definition (libc's, or a sanitizer's interceptor) unchanged unless the caller is the
/// program itself (the executable, where Rotor's static runtime also lives) or libstdc++ (a file
/// stream), and shadowing is on (a multi-rank session on a rank other than 0, without
/// --rotor-all-output). Then a write-only open (mode 'w' or 'a' without '+') goes to the path's
/// shadow, and any other open of a shadowed path too. MPI's, HDF5's and other libraries' files are
/// left alone. Rotor's own files (metrics, traces, order files, checkpoints) are written by rank 0
/// only.

#include "FileWritesOnce.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>
#include <unistd.h>

namespace rotor::detail {
namespace {

std::atomic<bool> shadowing{false};

using FopenFn = std::FILE* (*)(const char*, const char*);

FopenFn next_definition(const char* name) {
  return reinterpret_cast<FopenFn>(dlsym(RTLD_NEXT, name));
}

bool only_writes(const char* mode) {
  return mode != nullptr && (mode[0] == 'w' || mode[0] == 'a') && std::strchr(mode, '+') == nullptr;
}

/// The object (executable or shared library) that holds `address`, by its load base.
const void* object_of(const void* address) {
  Dl_info info;
  return dladdr(address, &info) != 0 ? info.dli_fbase : nullptr;
}

bool is_libstdcxx(const void* address) {
  Dl_info info;
  return dladdr(address, &info) != 0 && info.dli_fname != nullptr &&
         std::strstr(info.dli_fname, "libstdc++") != nullptr;
}

/// The caller is the program (the object this function is linked into) or a C++ file stream.
bool called_by_program(const void* caller) {
  static const void* const program = object_of(reinterpret_cast<const void*>(&object_of));
  return object_of(caller) == program || is_libstdcxx(caller);
}

/// Each shadowed path (as the program wrote it) and its shadow file.
struct Shadows {
  std::mutex mutex;
  std::map<std::string, std::string> files;

  ~Shadows() {
    for (const auto& [path, shadow] : files) {
      ::unlink(shadow.c_str());
    }
  }
};

Shadows& shadows() {
  static Shadows s;
  return s;
}

/// The shadow of `path`: the one made before, or (when `make`) a new empty file; "" otherwise.
std::string shadow_of(const char* path, bool make) {
  Shadows& s = shadows();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (auto it = s.files.find(path); it != s.files.end()) {
    return it->second;
  }
  if (!make) {
    return {};
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/rotor-shadow-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    return "/dev/null"; // still written once; this rank cannot read it back
  }
  ::close(fd);
  s.files.emplace(path, name);
  return name;
}

std::FILE* open_file(FopenFn real, const char* path, const char* mode, const void* caller) {
  if (real == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  if (path != nullptr && shadowing.load(std::memory_order_relaxed) && called_by_program(caller)) {
    const std::string shadow = shadow_of(path, only_writes(mode));
    if (!shadow.empty()) {
      return real(shadow.c_str(), mode);
    }
  }
  return real(path, mode);
}

} // namespace

void shadow_file_writes(bool on) {
  if (on) {
    shadows(); // constructed before any use, so destroyed (files removed) after the last one
  }
  shadowing.store(on);
}

} // namespace rotor::detail

extern "C" {

std::FILE* fopen(const char* path, const char* mode) {
  static const rotor::detail::FopenFn real = rotor::detail::next_definition("fopen");
  return rotor::detail::open_file(real, path, mode, __builtin_return_address(0));
}

std::FILE* fopen64(const char* path, const char* mode) {
  static const rotor::detail::FopenFn real = rotor::detail::next_definition("fopen64");
  return rotor::detail::open_file(real, path, mode, __builtin_return_address(0));
}

} // extern "C"
