#include "OrderRecorder.h"

#include "Comm.h"
#include "rotor/distarray/detail/DatasetInternals.h"

#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace rotor::detail {
namespace {

struct Entry {
  bool loop = false;
  std::vector<std::uint64_t> ids;
  std::int64_t line = 0; ///< line of the entry in the replay file
};

struct Recorder {
  std::mutex mutex;
  bool recording = false;
  bool capturing = false;
  bool replaying = false;
  bool validating = false;                          ///< --rotor-validate: keep record ids
  std::vector<std::uint64_t>* validation = nullptr; ///< the validated execution's order
  std::ofstream file;
  std::string replay_path;
  std::unordered_map<const void*, int> dataset_numbers;
  std::map<int, std::deque<Entry>> replay_entries;
  /// Replay: each dataset's own order (its ids) from before the recorded loops that reordered it
  /// since its last plain access; a plain access puts it back, as the rotor build's serial code
  /// sees the records in the dataset's order after a parallel loop.
  std::unordered_map<const void*, std::vector<std::uint64_t>> dataset_orders;
  std::vector<LoopOrder> captured;

  int number_of(const void* identity) {
    auto [it, inserted] =
        dataset_numbers.emplace(identity, static_cast<int>(dataset_numbers.size()));
    return it->second;
  }
};

Recorder& recorder() {
  static Recorder r;
  return r;
}

bool keep_ids_hook() {
  Recorder& r = recorder();
  return r.recording || r.capturing || r.replaying || r.validating;
}

/// Puts `records` (and `ids`) in the order of `target`, which lists ids once each; returns an id
/// of `target` the records do not have (and changes nothing), if any.
std::optional<std::uint64_t> permute_to(const std::vector<std::uint64_t>& target, char* records,
                                        std::size_t record_bytes, std::vector<std::uint64_t>& ids) {
  const std::size_t count = ids.size();
  std::unordered_map<std::uint64_t, std::size_t> position;
  position.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    position.emplace(ids[i], i);
  }
  std::vector<char> out(count * record_bytes);
  for (std::size_t i = 0; i < count; ++i) {
    auto it = position.find(target[i]);
    if (it == position.end()) {
      return target[i];
    }
    std::memcpy(out.data() + i * record_bytes, records + it->second * record_bytes, record_bytes);
  }
  std::memcpy(records, out.data(), out.size());
  ids = target;
  return std::nullopt;
}

void reorder(const std::string& path, const Entry& e, int dataset, char* records,
             std::size_t record_bytes, std::vector<std::uint64_t>& ids, std::size_t count) {
  auto fail = [&](const std::string& what) {
    throw std::runtime_error("rotor: replay " + path + ":" + std::to_string(e.line) + ": dataset " +
                             std::to_string(dataset) + ": " + what);
  };
  if (ids.size() != count) {
    fail("its " + std::to_string(count) +
         " records have no record ids, so no recorded order can "
         "be replayed on them: create the rotor::Session before the dataset");
  }
  if (e.ids.size() != count) {
    fail("the recorded loop applied " + std::to_string(e.ids.size()) +
         " records but this dataset has " + std::to_string(count));
  }
  if (const auto missing = permute_to(e.ids, records, record_bytes, ids)) {
    fail("record id " + std::to_string(*missing) + " is not in this dataset");
  }
}

/// Puts the records back in the dataset's order `before` (records appended since follow, in
/// their current order).
void restore_order(const std::vector<std::uint64_t>& before, char* records,
                   std::size_t record_bytes, std::vector<std::uint64_t>& ids) {
  std::unordered_set<std::uint64_t> present(ids.begin(), ids.end());
  std::unordered_set<std::uint64_t> listed;
  std::vector<std::uint64_t> target;
  target.reserve(ids.size());
  for (std::uint64_t id : before) {
    if (present.count(id) != 0 && listed.insert(id).second) {
      target.push_back(id);
    }
  }
  for (std::uint64_t id : ids) {
    if (listed.count(id) == 0) {
      target.push_back(id);
    }
  }
  permute_to(target, records, record_bytes, ids); // target lists exactly the ids present
}

void on_begin_hook(const void* identity, void* records, std::size_t record_bytes,
                   std::vector<std::uint64_t>& ids, std::size_t count) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.recording && r.file.is_open()) {
    r.file << "plain " << r.number_of(identity) << "\n";
  }
  if (!r.replaying) {
    return;
  }
  int dataset = r.number_of(identity);
  auto& queue = r.replay_entries[dataset];
  if (queue.empty()) {
    throw std::runtime_error("rotor: replay " + r.replay_path + ": no recorded entry left for " +
                             "dataset " + std::to_string(dataset) +
                             " (the program's control flow differs from the recorded run)");
  }
  Entry e = std::move(queue.front());
  queue.pop_front();
  char* bytes = static_cast<char*>(records);
  if (e.loop) {
    r.dataset_orders.try_emplace(identity, ids); // kept from the first loop since a plain access
    reorder(r.replay_path, e, dataset, bytes, record_bytes, ids, count);
    return;
  }
  auto before = r.dataset_orders.find(identity);
  if (before != r.dataset_orders.end()) {
    restore_order(before->second, bytes, record_bytes, ids);
    r.dataset_orders.erase(before);
  }
}

void on_new_order_hook(const void* identity) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.dataset_orders.erase(identity);
}

void install_hooks() {
  RecordOrderHooks hooks;
  hooks.keep_ids = keep_ids_hook;
  hooks.on_begin = on_begin_hook;
  hooks.on_new_order = on_new_order_hook;
  set_record_order_hooks(hooks);
}

} // namespace

void start_order_recording(const std::string& path) {
  if (path.empty()) {
    return;
  }
  Recorder& r = recorder();
  r.recording = true;
  r.dataset_numbers.clear();
  if (comm().rank() == 0) {
    r.file.open(path, std::ios::trunc);
    if (!r.file) {
      throw std::runtime_error("rotor: --rotor-record-order=" + path + ": cannot write the file");
    }
    r.file << "rotor-order 1\n";
  }
  install_hooks();
}

void finish_order_recording() {
  Recorder& r = recorder();
  if (r.file.is_open()) {
    r.file.close();
  }
  r.recording = false;
}

void start_order_replay(const std::string& path) {
  if (path.empty()) {
    return;
  }
  Recorder& r = recorder();
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("rotor: --rotor-replay-order=" + path + ": cannot read the file");
  }
  auto fail = [&](std::int64_t line, const std::string& what) {
    throw std::runtime_error("rotor: replay " + path + ":" + std::to_string(line) + ": " + what);
  };
  std::string text;
  std::int64_t line_no = 1;
  if (!std::getline(in, text) || text != "rotor-order 1") {
    fail(1, "expected the header 'rotor-order 1'");
  }
  r.replay_entries.clear();
  while (std::getline(in, text)) {
    ++line_no;
    if (text.empty()) {
      continue;
    }
    std::istringstream ls(text);
    std::string kind;
    int dataset = -1;
    ls >> kind >> dataset;
    if (!ls || dataset < 0 || (kind != "loop" && kind != "plain")) {
      fail(line_no, "expected 'loop DATASET FILE:LINE COUNT' or 'plain DATASET', found '" +
                        text.substr(0, 60) + "'");
    }
    Entry e;
    e.line = line_no;
    if (kind == "loop") {
      std::string where;
      std::int64_t count = -1;
      ls >> where >> count;
      if (!ls || count < 0) {
        fail(line_no, "bad loop entry '" + text.substr(0, 60) + "'");
      }
      std::string ids_line;
      if (!std::getline(in, ids_line)) {
        fail(line_no + 1, "missing the line of record ids (file truncated)");
      }
      ++line_no;
      std::istringstream is(ids_line);
      e.ids.reserve(static_cast<std::size_t>(count));
      std::uint64_t id = 0;
      while (is >> id) {
        e.ids.push_back(id);
      }
      if (static_cast<std::int64_t>(e.ids.size()) != count) {
        fail(line_no, "expected " + std::to_string(count) + " record ids, found " +
                          std::to_string(e.ids.size()));
      }
      e.loop = true;
    }
    r.replay_entries[dataset].push_back(std::move(e));
  }
  r.replay_path = path;
  r.replaying = true;
  r.dataset_numbers.clear();
  install_hooks();
}

void stop_order_replay() {
  Recorder& r = recorder();
  r.replaying = false;
  r.replay_entries.clear();
  r.dataset_numbers.clear();
}

void set_order_capture(bool on) {
  Recorder& r = recorder();
  r.capturing = on;
  if (on) {
    install_hooks();
  }
}

std::vector<LoopOrder> take_captured_orders() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  return std::move(r.captured);
}

void start_order_validation(bool on) {
  Recorder& r = recorder();
  r.validating = on;
  if (on) {
    install_hooks();
  }
}

void set_validation_sink(std::vector<std::uint64_t>* sink) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.validation = sink;
}

std::vector<std::uint64_t>* validation_sink() {
  return recorder().validation;
}

bool order_wanted() {
  Recorder& r = recorder();
  return r.recording || r.capturing || r.validation != nullptr;
}

void record_loop_order(const void* dataset, const char* file, int line,
                       std::vector<std::uint64_t> ids) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  int number = r.number_of(dataset);
  std::string where = std::string(file) + ":" + std::to_string(line);
  if (r.recording && r.file.is_open()) {
    r.file << "loop " << number << " " << where << " " << ids.size() << "\n";
    for (std::size_t i = 0; i < ids.size(); ++i) {
      r.file << (i ? " " : "") << ids[i];
    }
    r.file << "\n";
    r.file.flush();
  }
  if (r.validation != nullptr) {
    *r.validation = ids;
  }
  if (r.capturing) {
    r.captured.push_back(LoopOrder{number, where, std::move(ids)});
  }
}

std::vector<std::size_t>& last_step_sizes() {
  static std::vector<std::size_t> sizes;
  return sizes;
}

} // namespace rotor::detail
