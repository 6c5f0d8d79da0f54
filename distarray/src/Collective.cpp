#include "rotor/distarray/detail/Collective.h"
#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/detail/AccessCheck.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace rotor::detail {
namespace {

/// One process: every collective is the identity.
class SingleProcess final : public Collective {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void barrier() override {}
  void allreduce_max(std::int64_t*, std::size_t) override {}
  void allreduce_sum(std::int64_t*, std::size_t) override {}
  void allreduce_sum(double*, std::size_t) override {}
  void broadcast(void*, std::size_t, int) override {}
  std::vector<char> allgatherv(const void* data, std::size_t bytes,
                               std::vector<std::size_t>& offsets) override {
    offsets = {0, bytes};
    const char* p = static_cast<const char*>(data);
    return std::vector<char>(p, p + bytes);
  }
  std::vector<std::vector<char>> alltoallv(const std::vector<std::vector<char>>& send) override {
    return send;
  }
  [[noreturn]] void abort(const char* message) override {
    std::fprintf(stderr, "%s\n", message);
    std::fflush(stderr);
    std::abort();
  }
};

SingleProcess single_process;
Collective* installed = nullptr;

void (*starter)() = nullptr;
std::once_flag started;

} // namespace

Collective& collective() {
  if (installed == nullptr && starter != nullptr) {
    std::call_once(started, starter);
  }
  return installed ? *installed : single_process;
}
void set_collective_starter(void (*s)()) {
  starter = s;
}
void set_collective(Collective* c) {
  installed = c;
}

std::string broadcast_from_root(std::string text) {
  Collective& c = collective();
  std::uint64_t n = text.size();
  c.broadcast(&n, sizeof n, 0);
  text.resize(n);
  if (n > 0) {
    c.broadcast(text.data(), n, 0);
  }
  return text;
}

std::int64_t global_sum(std::int64_t local) {
  collective().allreduce_sum(&local, 1);
  return local;
}

std::int64_t global_max(std::int64_t local) {
  collective().allreduce_max(&local, 1);
  return local;
}

const AccessGuard*& current_access_guard() {
  thread_local const AccessGuard* guard = nullptr;
  return guard;
}

} // namespace rotor::detail
