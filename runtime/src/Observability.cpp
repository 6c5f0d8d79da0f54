#include "Observability.h"

#include "Comm.h"
#include "rotor/runtime/Metrics.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace rotor::detail {
namespace {

struct Observer {
  std::mutex mutex;
  bool metrics = false, trace = false;
  std::ofstream metrics_file;
  std::string trace_path;
  std::ostringstream events; ///< this rank's trace events, comma-separated JSON objects
  bool first_event = true;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::map<std::string, int> executions;
};

Observer& observer() {
  static Observer o;
  return o;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string number(double v) {
  if (!std::isfinite(v)) {
    return "null";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

} // namespace

void start_observability(const SessionSettings& settings, const char* program, int ranks,
                         int threads) {
  Observer& o = observer();
  o.start = std::chrono::steady_clock::now();
  o.trace = !settings.trace.empty();
  o.trace_path = settings.trace;
  o.metrics = !settings.metrics.empty();
  if (!o.metrics || comm().rank() != 0) {
    return;
  }
  o.metrics_file.open(settings.metrics, std::ios::trunc);
  if (!o.metrics_file) {
    throw std::runtime_error("rotor: --rotor-metrics=" + settings.metrics +
                             ": cannot write the file");
  }
  std::string name = program;
  if (auto slash = name.rfind('/'); slash != std::string::npos) {
    name = name.substr(slash + 1);
  }
  std::string label = settings.label;
  if (label.empty()) {
    label = ranks * threads == 1 ? "serial"
                                 : "np" + std::to_string(ranks) + ".t" + std::to_string(threads);
  }
  o.metrics_file << "{\"kind\": \"run\", \"program\": " << json_string(name)
                 << ", \"label\": " << json_string(label) << ", \"ranks\": " << ranks
                 << ", \"threads\": " << threads << ", \"workers\": " << ranks * threads << "}\n";
  o.metrics_file.flush();
}

bool metrics_on() {
  return observer().metrics;
}
bool tracing_on() {
  return observer().trace;
}

double session_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - observer().start).count();
}

void trace_event(const char* name, double start_s, double duration_s, int tid, std::int64_t block,
                 std::int64_t bytes) {
  Observer& o = observer();
  if (!o.trace) {
    return;
  }
  std::lock_guard<std::mutex> lock(o.mutex);
  if (!o.first_event) {
    o.events << ",\n";
  }
  o.first_event = false;
  o.events << "{\"name\": \"" << name
           << "\", \"ph\": \"X\", \"ts\": " << static_cast<long long>(start_s * 1e6)
           << ", \"dur\": " << static_cast<long long>(std::max(duration_s, 0.0) * 1e6)
           << ", \"pid\": " << comm().rank() << ", \"tid\": " << tid << ", \"args\": {";
  bool comma = false;
  if (block >= 0) {
    o.events << "\"block\": " << block;
    comma = true;
  }
  if (bytes >= 0) {
    o.events << (comma ? ", " : "") << "\"bytes\": " << bytes;
  }
  o.events << "}}";
}

void record_loop_metrics(const std::string& where, const char* plan, double seconds,
                         std::int64_t bytes, const std::vector<WorkerStats>& mine) {
  Observer& o = observer();
  if (!o.metrics) {
    return;
  }
  Comm& c = comm();
  std::vector<std::size_t> offs;
  std::vector<char> all = c.allgatherv(mine.data(), mine.size() * sizeof(WorkerStats), offs);
  std::int64_t total_bytes = bytes;
  c.allreduce_sum(&total_bytes, 1);
  if (c.rank() != 0) {
    return;
  }
  std::vector<WorkerStats> workers(all.size() / sizeof(WorkerStats));
  std::memcpy(static_cast<void*>(workers.data()), all.data(), all.size());
  std::int64_t records = 0;
  for (const WorkerStats& w : workers) {
    records += w.records;
  }
  const int execution = ++o.executions[where];
  std::ostringstream line;
  line << "{\"kind\": \"loop\", \"loop\": " << json_string(where) << ", \"plan\": \"" << plan
       << "\", \"execution\": " << execution << ", \"t\": " << number(session_seconds())
       << ", \"seconds\": " << number(seconds) << ", \"records\": " << records
       << ", \"records_per_s\": " << number(seconds > 0 ? records / seconds : 0.0)
       << ", \"bytes_moved\": " << total_bytes << ", \"workers\": [";
  for (std::size_t i = 0; i < workers.size(); ++i) {
    const WorkerStats& w = workers[i];
    line << (i ? ", " : "") << "{\"worker\": " << w.worker << ", \"rank\": " << w.rank
         << ", \"thread\": " << w.thread << ", \"compute_s\": " << number(w.compute_s)
         << ", \"comm_s\": " << number(w.comm_s) << ", \"wait_s\": " << number(w.wait_s)
         << ", \"records\": " << w.records << "}";
  }
  line << "]}\n";
  std::lock_guard<std::mutex> lock(o.mutex);
  o.metrics_file << line.str();
  o.metrics_file.flush();
}

void finish_observability() {
  Observer& o = observer();
  if (o.metrics_file.is_open()) {
    o.metrics_file.close();
  }
  if (!o.trace) {
    return;
  }
  o.trace = false;
  const std::string mine = o.events.str();
  std::vector<std::size_t> offs;
  Comm& c = comm();
  std::vector<char> all = c.allgatherv(mine.data(), mine.size(), offs);
  if (c.rank() != 0) {
    return;
  }
  std::ofstream out(o.trace_path, std::ios::trunc);
  if (!out) {
    throw std::runtime_error("--rotor-trace=" + o.trace_path + ": cannot write the file");
  }
  out << "{\"traceEvents\": [\n";
  bool first = true;
  for (int r = 0; r < c.size(); ++r) {
    if (offs[r + 1] == offs[r]) {
      continue;
    }
    out << (first ? "" : ",\n");
    out.write(all.data() + offs[r], static_cast<std::streamsize>(offs[r + 1] - offs[r]));
    first = false;
  }
  out << "\n]}\n";
}

} // namespace rotor::detail

namespace rotor {

void report_metric(const std::string& name, double value, std::int64_t step) {
  detail::Observer& o = detail::observer();
  if (!o.metrics || !o.metrics_file.is_open()) {
    return;
  }
  std::lock_guard<std::mutex> lock(o.mutex);
  o.metrics_file << "{\"kind\": \"metric\", \"name\": " << detail::json_string(name)
                 << ", \"value\": " << detail::number(value) << ", \"step\": " << step
                 << ", \"t\": " << detail::number(detail::session_seconds()) << "}\n";
  o.metrics_file.flush();
}

} // namespace rotor
