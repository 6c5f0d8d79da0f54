// The lost-rank detector (issue 20, item 3): see PeerWatch.h.
#include "PeerWatch.h"

#include "Comm.h"
#include "Failure.h"
#include "rotor/runtime/detail/Watchdog.h"

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <random>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace rotor::detail {
namespace {

constexpr char k_leaving = 'L';       ///< "this rank leaves on purpose": not a lost rank
constexpr char k_welcome = 'K';       ///< rank 0 accepted the handshake
constexpr int k_max_addresses = 16;   ///< rank 0's IPv4 addresses offered to the others
constexpr int k_connect_ms = 2000;    ///< per address: connect, then the handshake
constexpr int k_group_ms = 20;        ///< connections closing this close together: one report
constexpr int k_host_wait_ms = 250;   ///< a lost rank's host-mates: how long to wait for them too
constexpr int k_launcher_grace_s = 5; ///< after the report, the launcher's time to end the job

/// What rank 0 broadcasts: where to connect, and the cookie that proves a connection is ours.
struct Rendezvous {
  std::uint64_t cookie = 0;
  std::uint32_t addresses[k_max_addresses] = {}; ///< IPv4, network byte order
  std::uint16_t port = 0;                        ///< 0: rank 0 could not listen
  std::uint16_t address_count = 0;
};

struct Hello {
  std::uint64_t cookie = 0;
  std::int32_t rank = -1;
};

struct State {
  int rank = 0;
  int size = 1;
  std::vector<std::string> hosts; ///< hosts[r]: the host name of rank r
  std::uint64_t cookie = 0;
  int listen_fd = -1; ///< rank 0
  int stop_pipe[2] = {-1, -1};
  std::thread thread;
};

// Never freed while a thread may use them; no static destructors (exit() with a Session alive).
State* the_state = nullptr;
/// The connections (rank 0: by rank; other ranks: entry 0 is rank 0), -1 where none. Read by
/// peer_watch_announce_leaving from any thread.
std::atomic<int>* peer_fds = nullptr;
std::atomic<int> peer_fd_count{0};

std::string errno_text(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

bool wait_fd(int fd, short events, int ms) {
  pollfd p{fd, events, 0};
  int r;
  do {
    r = ::poll(&p, 1, ms);
  } while (r < 0 && errno == EINTR);
  return r == 1 && (p.revents & events) != 0;
}

bool send_all(int fd, const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t k = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) {
      continue;
    }
    if (k <= 0) {
      return false;
    }
    p += k;
    bytes -= static_cast<std::size_t>(k);
  }
  return true;
}

bool read_exact(int fd, void* data, std::size_t bytes, int ms) {
  char* p = static_cast<char*>(data);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (bytes > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0 || !wait_fd(fd, POLLIN, static_cast<int>(left))) {
      return false;
    }
    const ssize_t k = ::recv(fd, p, bytes, 0);
    if (k < 0 && errno == EINTR) {
      continue;
    }
    if (k <= 0) {
      return false;
    }
    p += k;
    bytes -= static_cast<std::size_t>(k);
  }
  return true;
}

std::string ipv4_text(std::uint32_t address, std::uint16_t port) {
  char text[INET_ADDRSTRLEN] = "?";
  in_addr a{};
  a.s_addr = address;
  ::inet_ntop(AF_INET, &a, text, sizeof text);
  return std::string(text) + ":" + std::to_string(port);
}

/// A listening socket on every address of this host, on a port the kernel picks.
int open_listener(std::uint16_t& port, std::string& why) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    why = errno_text("socket");
    return -1;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, SOMAXCONN) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    why = errno_text("rank 0: listening TCP socket");
    ::close(fd);
    return -1;
  }
  port = ntohs(a.sin_port);
  return fd;
}

/// Rank 0's IPv4 addresses (interfaces that are up; loopback last, for ranks on its host).
void add_local_addresses(Rendezvous& rv) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    return;
  }
  for (int loopback = 0; loopback < 2; ++loopback) {
    for (ifaddrs* a = list; a; a = a->ifa_next) {
      if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !(a->ifa_flags & IFF_UP) ||
          ((a->ifa_flags & IFF_LOOPBACK) != 0) != (loopback == 1) ||
          rv.address_count == k_max_addresses) {
        continue;
      }
      rv.addresses[rv.address_count++] =
          reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr;
    }
  }
  ::freeifaddrs(list);
}

/// A connected (blocking) socket to ADDRESS:PORT, or -1 with errno set, within `ms`.
int connect_within(std::uint32_t address, std::uint16_t port, int ms) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    return -1;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = address;
  a.sin_port = htons(port);
  int err = 0;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    err = errno;
    if (err == EINPROGRESS) {
      err = ETIMEDOUT;
      socklen_t len = sizeof err;
      if (wait_fd(fd, POLLOUT, ms) && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
      }
    }
  }
  if (err == 0 && ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
    err = errno;
  }
  if (err != 0) {
    ::close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

/// A rank other than 0: its connection to rank 0 (the first of rank 0's addresses that answers
/// the handshake), or -1 with the reason.
int join_rank0(const Rendezvous& rv, int rank, std::string& why) {
  if (rv.port == 0) {
    why = "rank 0 could not open a listening socket";
    return -1;
  }
  why = "rank 0 has no IPv4 address";
  for (int i = 0; i < rv.address_count; ++i) {
    const std::string where = ipv4_text(rv.addresses[i], rv.port);
    const int fd = connect_within(rv.addresses[i], rv.port, k_connect_ms);
    if (fd < 0) {
      why = errno_text("cannot connect to rank 0 at " + where);
      continue;
    }
    Hello hello;
    hello.cookie = rv.cookie;
    hello.rank = rank;
    char reply = 0;
    if (send_all(fd, &hello, sizeof hello) && read_exact(fd, &reply, 1, k_connect_ms) &&
        reply == k_welcome) {
      return fd;
    }
    why = "no handshake from rank 0 at " + where;
    ::close(fd);
  }
  return -1;
}

/// Rank 0: takes one connection off the listening socket; keeps it when its handshake is ours.
void admit(const State& s) {
  const int fd = ::accept4(s.listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) {
    return;
  }
  Hello hello;
  if (read_exact(fd, &hello, sizeof hello, k_connect_ms) && hello.cookie == s.cookie &&
      hello.rank > 0 && hello.rank < s.size && peer_fds[hello.rank].load() < 0 &&
      send_all(fd, &k_welcome, 1)) {
    peer_fds[hello.rank].store(fd);
    return;
  }
  ::close(fd);
}

/// Something arrived on rank `r`'s connection: true while the rank is there or left on purpose
/// (`departed`), false when the connection closed without the leaving byte.
bool still_there(int fd, bool& departed) {
  char byte = 0;
  const ssize_t k = ::recv(fd, &byte, 1, MSG_DONTWAIT);
  if (k == 1) {
    departed = byte == k_leaving;
    return true;
  }
  return k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
}

/// "ranks 2,3 on host h2 (all its ranks)", host by host in rank order.
std::string describe_lost(const State& s, std::vector<int> lost) {
  std::sort(lost.begin(), lost.end());
  std::string text;
  std::vector<bool> done(lost.size(), false);
  for (std::size_t i = 0; i < lost.size(); ++i) {
    if (done[i]) {
      continue;
    }
    const std::string& host = s.hosts[static_cast<std::size_t>(lost[i])];
    std::string ranks;
    int count = 0;
    for (std::size_t j = i; j < lost.size(); ++j) {
      if (!done[j] && s.hosts[static_cast<std::size_t>(lost[j])] == host) {
        done[j] = true;
        ranks += (count++ ? "," : "") + std::to_string(lost[j]);
      }
    }
    const auto on_host = std::count(s.hosts.begin(), s.hosts.end(), host);
    text += std::string(text.empty() ? "" : "; ") + (count > 1 ? "ranks " : "rank ") + ranks +
            " on host " + host + " (" +
            (count == on_host
                 ? std::string("all its ranks")
                 : std::to_string(count) + " of its " + std::to_string(on_host) + " ranks") +
            ")";
  }
  return text;
}

/// True when every lost rank's host has lost all its ranks but this one: the connections of a
/// host that went down close within milliseconds of each other, or further apart on a loaded host,
/// and one report should name them all.
bool whole_hosts_lost(const State& s, const std::vector<int>& lost) {
  for (const int r : lost) {
    const std::string& host = s.hosts[static_cast<std::size_t>(r)];
    for (int other = 0; other < s.size; ++other) {
      if (other != s.rank && s.hosts[static_cast<std::size_t>(other)] == host &&
          std::find(lost.begin(), lost.end(), other) == lost.end()) {
        return false;
      }
    }
  }
  return true;
}

/// Prints the lost ranks (rank 0; for a lost rank 0, the first rank of each other host), then
/// gives the launcher k_launcher_grace_s to end the job before aborting it.
void report_lost(const State& s, const std::vector<int>& lost) {
  const bool first_of_host =
      std::find(s.hosts.begin(), s.hosts.end(), s.hosts[static_cast<std::size_t>(s.rank)]) -
          s.hosts.begin() ==
      s.rank;
  if (s.rank != 0 && !first_of_host) {
    return; // the first rank of this host reports and aborts
  }
  std::fprintf(stderr,
               "[rank %d] rotor: lost contact with %s: %s without leaving the session (killed, "
               "crashed, or the host went down); the job ends\n",
               s.rank, describe_lost(s, lost).c_str(),
               lost.size() > 1 ? "their processes ended" : "its process ended");
  std::fflush(stderr);
  if (wait_fd(s.stop_pipe[0], POLLIN, k_launcher_grace_s * 1000)) {
    return; // the session is ending
  }
  std::fprintf(stderr,
               "[rank %d] rotor: the job did not end %d s after it lost a rank; aborting "
               "all %d ranks\n",
               s.rank, k_launcher_grace_s, s.size);
  abort_all_ranks(6);
}

/// The thread: polls the connections (and, on rank 0, the listening socket) until stopped.
void watch(State& s) {
  std::vector<bool> closed(static_cast<std::size_t>(peer_fd_count.load()), false);
  std::vector<int> lost;
  std::vector<pollfd> fds;
  std::vector<int> ranks; // ranks[i]: the rank behind fds[i]; -1 the stop pipe, -2 the listener
  std::chrono::steady_clock::time_point first_loss;
  for (;;) {
    fds.assign(1, pollfd{s.stop_pipe[0], POLLIN, 0});
    ranks.assign(1, -1);
    if (s.listen_fd >= 0) {
      fds.push_back(pollfd{s.listen_fd, POLLIN, 0});
      ranks.push_back(-2);
    }
    for (int r = 0; r < static_cast<int>(closed.size()); ++r) {
      if (const int fd = peer_fds[r].load(); fd >= 0 && !closed[static_cast<std::size_t>(r)]) {
        fds.push_back(pollfd{fd, POLLIN, 0});
        ranks.push_back(r);
      }
    }
    const int n = ::poll(fds.data(), fds.size(), lost.empty() ? -1 : k_group_ms);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n == 0 && !lost.empty() && !whole_hosts_lost(s, lost) &&
        std::chrono::steady_clock::now() - first_loss < std::chrono::milliseconds(k_host_wait_ms)) {
      continue; // the rest of a lost rank's host may still close
    }
    if (n <= 0 || fds[0].revents != 0) {
      if (fds[0].revents == 0 && !lost.empty()) {
        report_lost(s, lost);
      }
      return;
    }
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents == 0) {
        continue;
      }
      if (ranks[i] == -2) {
        admit(s);
        continue;
      }
      bool departed = false;
      const bool there = still_there(fds[i].fd, departed);
      if (!there || departed) {
        closed[static_cast<std::size_t>(ranks[i])] = true; // not polled again
      }
      if (!there) {
        if (lost.empty()) {
          first_loss = std::chrono::steady_clock::now();
        }
        lost.push_back(ranks[i]); // on ranks but 0, entry 0 is rank 0
      }
    }
  }
}

std::vector<std::string> gather_hosts(Comm& comm) {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) {
    std::snprintf(name, sizeof name, "?");
  }
  std::vector<std::size_t> offsets;
  const std::vector<char> all = comm.allgatherv(name, std::strlen(name), offsets);
  std::vector<std::string> hosts;
  for (int r = 0; r < comm.size(); ++r) {
    hosts.emplace_back(all.data() + offsets[r], offsets[r + 1] - offsets[r]);
  }
  return hosts;
}

std::uint64_t random_cookie() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

/// Rank 0: the listening socket and what to broadcast (port 0 when it could not listen).
Rendezvous open_rendezvous(State& s, std::string& why) {
  Rendezvous rv;
  rv.cookie = random_cookie();
  s.cookie = rv.cookie; // before the thread that checks it starts
  s.listen_fd = open_listener(rv.port, why);
  if (s.listen_fd >= 0) {
    add_local_addresses(rv);
  }
  return rv;
}

} // namespace

void start_peer_watch(Comm& comm) {
  stop_peer_watch();
  if (!comm.uses_mpi() || comm.size() < 2 || !(watchdog_timeout() > 0)) {
    return;
  }
  static const bool at_exit = std::atexit(peer_watch_announce_leaving) == 0;
  (void)at_exit;
  auto* s = new State;
  s->rank = comm.rank();
  s->size = comm.size();
  s->hosts = gather_hosts(comm);
  const int slots = s->rank == 0 ? s->size : 1;
  peer_fds = new std::atomic<int>[static_cast<std::size_t>(slots)];
  for (int r = 0; r < slots; ++r) {
    peer_fds[r].store(-1);
  }
  peer_fd_count.store(slots);
  the_state = s;
  std::string why;
  bool ok = ::pipe2(s->stop_pipe, O_CLOEXEC) == 0;
  if (!ok) {
    why = errno_text("pipe");
  }
  Rendezvous rv;
  if (s->rank == 0 && ok) {
    rv = open_rendezvous(*s, why);
    ok = s->listen_fd >= 0;
    if (ok) {
      s->thread = std::thread(watch, std::ref(*s)); // admits the others' connections
    }
  }
  comm.broadcast(&rv, sizeof rv, 0);
  if (s->rank != 0 && ok) {
    peer_fds[0].store(join_rank0(rv, s->rank, why));
    ok = peer_fds[0].load() >= 0;
  }
  std::int64_t first_failure = ok ? s->size : s->rank;
  comm.allreduce_min(&first_failure, 1);
  if (first_failure < s->size) {
    if (s->rank == first_failure) {
      std::fprintf(stderr, "[rank %d] rotor: warning: lost-rank detection is off: %s\n", s->rank,
                   why.c_str());
    }
    stop_peer_watch();
    return;
  }
  if (s->rank != 0) {
    s->thread = std::thread(watch, std::ref(*s));
  }
}

void stop_peer_watch() {
  State* s = the_state;
  if (!s) {
    return;
  }
  peer_watch_announce_leaving();
  if (s->thread.joinable()) {
    const char wake = 1;
    if (::write(s->stop_pipe[1], &wake, 1) != 1) {
      std::fprintf(stderr, "[rank %d] rotor: cannot stop the lost-rank detector\n", s->rank);
    }
    s->thread.join();
  }
  const int count = peer_fd_count.exchange(0);
  for (int r = 0; r < count; ++r) {
    if (const int fd = peer_fds[r].exchange(-1); fd >= 0) {
      ::close(fd);
    }
  }
  for (const int fd : {s->listen_fd, s->stop_pipe[0], s->stop_pipe[1]}) {
    if (fd >= 0) {
      ::close(fd);
    }
  }
  the_state = nullptr;
  delete[] peer_fds;
  peer_fds = nullptr;
  delete s;
}

void peer_watch_announce_leaving() {
  const int count = peer_fd_count.load();
  for (int r = 0; r < count; ++r) {
    if (const int fd = peer_fds[r].load(); fd >= 0) {
      (void)::send(fd, &k_leaving, 1, MSG_NOSIGNAL);
    }
  }
}

} // namespace rotor::detail
