#include "MetricsFile.h"

#include "rotor/runtime/Metrics.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace rotor {
namespace detail {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point& clock_start() {
  static Clock::time_point start = Clock::now();
  return start;
}

struct MetricsState {
  std::FILE* file = nullptr;
  std::string path;
  std::mutex mutex; ///< report_metric may come from any thread
  std::map<std::string, std::int64_t, std::less<>> last_step; ///< per metric name
};
MetricsState& state() {
  static MetricsState s;
  return s;
}
std::atomic<bool> enabled{false};

void write_line(MetricsState& s, const std::string& line) {
  if (std::fputs(line.c_str(), s.file) < 0 || std::fputc('\n', s.file) < 0 ||
      std::fflush(s.file) != 0) {
    std::fprintf(stderr, "[rank 0] rotor: %s: cannot write metrics: %s\n", s.path.c_str(),
                 std::strerror(errno));
  }
}

} // namespace

double session_seconds() {
  return std::chrono::duration<double>(Clock::now() - clock_start()).count();
}
void reset_session_clock() {
  clock_start() = Clock::now();
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) {
    return "null";
  }
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.8g", v);
  }
  return buf;
}

void open_metrics(const std::string& path, const std::string& program, const std::string& label,
                  int ranks, int threads) {
  MetricsState& s = state();
  close_metrics();
  s.file = std::fopen(path.c_str(), "w");
  if (!s.file) {
    throw std::runtime_error("[rank 0] rotor: --rotor-metrics=" + path +
                             ": cannot open for writing: " + std::strerror(errno));
  }
  s.path = path;
  s.last_step.clear();
  write_line(s, "{\"kind\": \"run\", \"program\": " + json_string(program) +
                    ", \"label\": " + json_string(label) + ", \"ranks\": " + std::to_string(ranks) +
                    ", \"threads\": " + std::to_string(threads) +
                    ", \"workers\": " + std::to_string(ranks * threads) + "}");
  enabled.store(true, std::memory_order_release);
}

bool metrics_open() {
  return enabled.load(std::memory_order_acquire);
}

void write_loop_metrics(const LoopMetrics& m) {
  MetricsState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.file) {
    return;
  }
  std::string line = "{\"kind\": \"loop\", \"loop\": " + json_string(m.loop) +
                     ", \"plan\": " + json_string(m.plan) +
                     ", \"execution\": " + std::to_string(m.execution) +
                     ", \"t\": " + json_number(m.t) + ", \"seconds\": " + json_number(m.seconds) +
                     ", \"records\": " + std::to_string(m.records) + ", \"records_per_s\": " +
                     json_number(m.seconds > 0 ? static_cast<double>(m.records) / m.seconds : 0) +
                     ", \"bytes_moved\": " + std::to_string(m.bytes_moved);
  if (m.redundant) {
    line += ", \"redundant\": true";
  }
  const auto list = [](const std::vector<int>& v) {
    std::string out = "[";
    for (std::size_t k = 0; k < v.size(); ++k) {
      out += (k ? ", " : "") + std::to_string(v[k]);
    }
    return out + "]";
  };
  if (!m.blocks.empty()) {
    line += ", \"blocks\": " + list(m.blocks) + ", \"tiles\": " + list(m.tiles);
  }
  line += ", \"workers\": [";
  for (std::size_t w = 0; w < m.workers.size(); ++w) {
    const WorkerTimes& x = m.workers[w];
    line += (w ? ", " : "");
    line += "{\"worker\": " + std::to_string(w) + ", \"rank\": " + std::to_string(x.rank) +
            ", \"thread\": " + std::to_string(x.thread) +
            ", \"compute_s\": " + json_number(x.compute_s) +
            ", \"comm_s\": " + json_number(x.comm_s) + ", \"wait_s\": " + json_number(x.wait_s) +
            ", \"layout_s\": " + json_number(x.layout_s) +
            ", \"records\": " + std::to_string(x.records) + "}";
  }
  write_line(s, line + "]}");
}

void close_metrics() {
  MetricsState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  enabled.store(false, std::memory_order_release);
  if (s.file) {
    if (std::fclose(s.file) != 0) {
      std::fprintf(stderr, "[rank 0] rotor: %s: cannot close metrics: %s\n", s.path.c_str(),
                   std::strerror(errno));
    }
    s.file = nullptr;
  }
}

} // namespace detail

bool metrics_enabled() {
  return detail::metrics_open();
}

void report_metric(std::string_view name, double value, std::int64_t step) {
  if (!detail::metrics_open()) {
    return; // no file, or not rank 0
  }
  using namespace detail;
  MetricsState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.file) {
    return;
  }
  auto it = s.last_step.find(name);
  if (it == s.last_step.end()) {
    it = s.last_step.emplace(std::string(name), 0).first;
  }
  if (step < 0) {
    step = it->second + 1;
  }
  it->second = step;
  write_line(s, "{\"kind\": \"metric\", \"name\": " + json_string(name) +
                    ", \"value\": " + json_number(value) + ", \"step\": " + std::to_string(step) +
                    ", \"t\": " + json_number(session_seconds()) + "}");
}

} // namespace rotor
