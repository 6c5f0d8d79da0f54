#include "Trace.h"

#include "Comm.h"
#include "MetricsFile.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace rotor::detail {
namespace {

using Clock = std::chrono::steady_clock;

/// One complete event, as gathered (trivially copyable).
struct Span {
  std::int64_t start_ns = 0; ///< since the rank's trace start
  std::int64_t dur_ns = 0;
  std::int64_t arg = -1;
  std::int32_t thread = 0;
  SpanKind kind = SpanKind::compute;
};

/// At most this many spans per rank (about 32 bytes each); later ones are dropped and counted.
constexpr std::size_t k_max_spans = std::size_t{1} << 21;

struct alignas(64) Track {
  std::vector<Span> spans;
  std::size_t dropped = 0;
};

struct TraceState {
  bool on = false;
  std::string path;
  Clock::time_point start;
  std::vector<Track> tracks;
};
TraceState& state() {
  static TraceState s;
  return s;
}

const char* name_of(SpanKind k) {
  switch (k) {
  case SpanKind::compute:
    return "compute";
  case SpanKind::send:
    return "send";
  case SpanKind::recv:
    return "recv";
  case SpanKind::wait:
    return "wait";
  case SpanKind::sync:
    return "sync";
  case SpanKind::layout:
    return "layout";
  case SpanKind::merge:
    return "merge";
  }
  return "?";
}

void write_trace(std::FILE* f, const std::vector<std::vector<Span>>& per_rank,
                 const std::vector<int>& threads_of_rank) {
  std::fputs("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n", f);
  bool first = true;
  auto sep = [&] {
    std::fputs(first ? "" : ",\n", f);
    first = false;
  };
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    sep();
    std::fprintf(f,
                 "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %zu, \"tid\": 0, "
                 "\"args\": {\"name\": \"rank %zu\"}}",
                 r, r);
    sep();
    std::fprintf(f,
                 "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": %zu, \"tid\": 0, "
                 "\"args\": {\"sort_index\": %zu}}",
                 r, r);
    for (int t = 0; t < threads_of_rank[r]; ++t) {
      sep();
      std::fprintf(f,
                   "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %zu, \"tid\": %d, "
                   "\"args\": {\"name\": \"worker %zu (thread %d)\"}}",
                   r, t, r * static_cast<std::size_t>(threads_of_rank[r]) + t, t);
    }
  }
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    for (const Span& s : per_rank[r]) {
      sep();
      std::fprintf(f,
                   "{\"name\": \"%s\", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"pid\": %zu, "
                   "\"tid\": %d",
                   name_of(s.kind), static_cast<double>(s.start_ns) / 1e3,
                   static_cast<double>(s.dur_ns) / 1e3, r, s.thread);
      if (s.arg >= 0) {
        std::fprintf(f, ", \"args\": {\"%s\": %lld}",
                     s.kind == SpanKind::compute ? "block" : "bytes",
                     static_cast<long long>(s.arg));
      }
      std::fputs("}", f);
    }
  }
  std::fputs("\n]}\n", f);
}

} // namespace

void start_trace(const std::string& path, int threads, Comm& comm) {
  TraceState& s = state();
  int ok = 1;
  std::string why;
  if (comm.rank() == 0) {
    std::FILE* f = std::fopen(path.c_str(), "w"); // fail now, not after the run
    if (!f) {
      ok = 0;
      why = std::strerror(errno);
    } else {
      std::fclose(f);
    }
  }
  comm.broadcast(&ok, sizeof ok, 0);
  if (!ok) {
    throw std::runtime_error("[rank " + std::to_string(comm.rank()) + "] rotor: --rotor-trace=" +
                             path + ": cannot open for writing" + (why.empty() ? "" : ": " + why));
  }
  s.path = path;
  s.tracks.assign(static_cast<std::size_t>(std::max(1, threads)), Track{});
  comm.barrier(); // ranks' clocks start together (to the barrier's precision)
  s.start = Clock::now();
  s.on = true;
}

bool trace_on() {
  return state().on;
}

void add_span(int thread, SpanKind kind, Clock::time_point start, Clock::time_point end,
              std::int64_t arg) {
  TraceState& s = state();
  if (!s.on || thread < 0 || static_cast<std::size_t>(thread) >= s.tracks.size()) {
    return;
  }
  Track& t = s.tracks[static_cast<std::size_t>(thread)];
  if (t.spans.size() * s.tracks.size() >= k_max_spans) {
    ++t.dropped;
    return;
  }
  Span sp;
  sp.start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(start - s.start).count();
  sp.dur_ns = std::max<std::int64_t>(
      0, std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
  sp.arg = arg;
  sp.thread = thread;
  sp.kind = kind;
  t.spans.push_back(sp);
}

void finish_trace(Comm& comm) {
  TraceState& s = state();
  if (!s.on) {
    return;
  }
  s.on = false;
  // this rank's spans, prefixed by its thread count and dropped count
  std::vector<char> mine(2 * sizeof(std::int64_t));
  std::int64_t head[2] = {static_cast<std::int64_t>(s.tracks.size()), 0};
  for (const Track& t : s.tracks) {
    head[1] += static_cast<std::int64_t>(t.dropped);
    const char* p = reinterpret_cast<const char*>(t.spans.data());
    mine.insert(mine.end(), p, p + t.spans.size() * sizeof(Span));
  }
  std::memcpy(mine.data(), head, sizeof head);
  s.tracks.clear();
  std::vector<std::vector<char>> send(static_cast<std::size_t>(comm.size()));
  send[0] = std::move(mine);
  std::vector<std::vector<char>> got = comm.alltoallv(send); // a gather to rank 0
  if (comm.rank() != 0) {
    return;
  }
  std::vector<std::vector<Span>> per_rank(got.size());
  std::vector<int> threads(got.size(), 1);
  std::int64_t dropped = 0;
  for (std::size_t r = 0; r < got.size(); ++r) {
    if (got[r].size() < sizeof head) {
      continue;
    }
    std::int64_t h[2];
    std::memcpy(h, got[r].data(), sizeof h);
    threads[r] = static_cast<int>(h[0]);
    dropped += h[1];
    per_rank[r].resize((got[r].size() - sizeof h) / sizeof(Span));
    std::memcpy(static_cast<void*>(per_rank[r].data()), got[r].data() + sizeof h,
                per_rank[r].size() * sizeof(Span));
    std::stable_sort(per_rank[r].begin(), per_rank[r].end(), [](const Span& a, const Span& b) {
      return a.thread != b.thread ? a.thread < b.thread : a.start_ns < b.start_ns;
    });
  }
  std::FILE* f = std::fopen(s.path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "[rank 0] rotor: --rotor-trace=%s: cannot open for writing: %s\n",
                 s.path.c_str(), std::strerror(errno));
    return;
  }
  write_trace(f, per_rank, threads);
  if (std::fclose(f) != 0) {
    std::fprintf(stderr, "[rank 0] rotor: --rotor-trace=%s: cannot write: %s\n", s.path.c_str(),
                 std::strerror(errno));
  }
  if (dropped > 0) {
    std::fprintf(stderr,
                 "[rank 0] rotor: --rotor-trace=%s: %lld spans dropped (over %zu per rank)\n",
                 s.path.c_str(), static_cast<long long>(dropped), k_max_spans);
  }
}

} // namespace rotor::detail
