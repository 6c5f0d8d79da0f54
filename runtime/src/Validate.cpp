// --rotor-validate (Validate.h): snapshot, replay of the recorded order, verdict.

#include "Validate.h"
#include "LoopWhere.h"

#include "Comm.h"
#include "LoopFrameAccess.h"
#include "Observability.h"
#include "OrderRecorder.h"
#include "Schedule.h"
#include "SessionState.h"
#include "rotor/distarray/detail/CounterRng.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <thread>

namespace rotor::detail {
namespace {

std::int64_t validated = 0; ///< executions that passed (the session's thread only)

std::string loop_name(const codegen::LoopSpec& spec) {
  return loop_where(spec) + " (" + kind_name(spec.kind) + ")";
}

/// Says once per loop why its executions are not validated.
void note_skipped(const codegen::LoopSpec& spec, const std::string& why) {
  static std::set<std::string> noted; // the session's thread only
  if (noted.insert(loop_name(spec)).second) {
    note("rotor: --rotor-validate: loop " + loop_name(spec) + " is not validated: " + why);
  }
}

/// Every rank's records with their ids, in rank order (the local ones when not distributed).
RecordSet gather_records(SpaceAccess& space) {
  RecordSet out;
  const std::size_t n = space.local_count(), rb = space.record_bytes();
  const char* data = space.record_data();
  const std::vector<std::uint64_t>& ids = space.ids();
  if (!space.distributed() || comm().size() == 1) {
    out.bytes.assign(data, data + n * rb);
    out.ids = ids;
    return out;
  }
  std::vector<std::size_t> offs;
  out.bytes = comm().allgatherv(data, n * rb, offs);
  std::vector<char> id_bytes = comm().allgatherv(ids.data(), ids.size() * sizeof(ids[0]), offs);
  out.ids.resize(id_bytes.size() / sizeof(ids[0]));
  if (!id_bytes.empty()) {
    std::memcpy(out.ids.data(), id_bytes.data(), id_bytes.size());
  }
  return out;
}

/// `records` in the order `order` lists their ids (order_difference found it a permutation).
RecordSet in_order(const RecordSet& records, const std::vector<std::uint64_t>& order,
                   std::size_t record_bytes) {
  const IdPositions position(records.ids);
  RecordSet out;
  out.ids = order;
  out.bytes.resize(order.size() * record_bytes);
  for (std::size_t k = 0; k < order.size(); ++k) {
    std::memcpy(out.bytes.data() + k * record_bytes,
                records.bytes.data() + position.find(order[k]) * record_bytes, record_bytes);
  }
  return out;
}

/// Rank 0's verdict on every rank. The other ranks wait for it sleeping (50 us doubling to 2 ms)
/// rather than spinning inside MPI, so rank 0's serial replay keeps the cores.
std::string share_verdict(std::string text) {
  Comm& c = comm();
  if (c.size() == 1) {
    return text;
  }
  constexpr int length_tag = 31010, text_tag = 31011; // the engine's tags are below 31010
  std::uint64_t n = text.size();
  if (c.rank() == 0) {
    std::vector<Comm::Request> sends;
    for (int r = 1; r < c.size(); ++r) {
      sends.push_back(c.isend(&n, 1, r, length_tag));
      if (n > 0) {
        sends.push_back(c.isend(text.data(), n, r, text_tag));
      }
    }
    c.wait_all(sends);
    return text;
  }
  std::vector<Comm::Request> length{c.irecv(&n, 1, 0, length_tag)};
  auto pause = std::chrono::microseconds(50);
  while (!c.test_all(length)) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
  text.resize(n);
  if (n > 0) {
    std::vector<Comm::Request> body{c.irecv(text.data(), n, 0, text_tag)};
    c.wait_all(body);
  }
  return text;
}

std::uint64_t hash_bytes(const char* p, std::size_t n) {
  std::uint64_t h = n, word = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::memcpy(&word, p + i, 8);
    h = mix64(h ^ word);
  }
  word = 0;
  std::memcpy(&word, p + i, n - i);
  return mix64(h ^ word);
}

/// Collective: "" when every rank's copy of every bound array equals rank 0's after the loop.
std::string ranks_difference(LoopFrame& frame) {
  Comm& c = comm();
  if (c.size() == 1) {
    return "";
  }
  std::vector<std::uint64_t> mine;
  for (const auto& a : LoopFrameAccess::arrays(frame)) {
    std::size_t n = a.binding.elem_bytes;
    for (std::int64_t e : a.binding.shape) {
      n *= static_cast<std::size_t>(e);
    }
    mine.push_back(hash_bytes(a.binding.data, n));
  }
  std::vector<std::size_t> offs;
  std::vector<char> all = c.allgatherv(mine.data(), mine.size() * 8, offs);
  const auto* words = reinterpret_cast<const std::uint64_t*>(all.data());
  for (int r = 1; r < c.size(); ++r) {
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (words[r * mine.size() + i] != words[i]) {
        return LoopFrameAccess::arrays(frame)[i].binding.name +
               " differs between rank 0 and rank " + std::to_string(r) + " after the loop";
      }
    }
  }
  return "";
}

/// One line and every rank stops (rank 0 aborts the job); a single process throws it.
[[noreturn]] void stop(const std::string& message) {
  Comm& c = comm();
  if (c.size() > 1) {
    if (c.rank() == 0) {
      c.abort(message.c_str());
    }
    c.barrier(); // never completes: rank 0 ends the job
    std::abort();
  }
  throw std::runtime_error(message);
}

} // namespace

std::int64_t validated_executions() {
  return validated;
}

std::unique_ptr<LoopValidation> LoopValidation::start(const codegen::LoopSpec& spec,
                                                      SpaceAccess& space, LoopFrame& frame,
                                                      const ExecutionInfo& info, bool buffered) {
  if (!session_state().settings.validate || info.kind == codegen::Kind::serial) {
    return nullptr; // a serial execution is its own replay
  }
  if (spec.kind == codegen::Kind::data_parallel) {
    note_skipped(spec, "data_parallel loops do not promise a serial order");
    return nullptr;
  }
  if (buffered) {
    note_skipped(spec, "its buffered arrays merge worker copies (no serial order)");
    return nullptr;
  }
  if (!spec.private_state.empty()) {
    note_skipped(spec, std::string("its private(") + spec.private_state.front() +
                           ") variable gives each worker its own state (no serial order)");
    return nullptr;
  }
  if (!spec.views.empty()) {
    note_skipped(spec, std::string("its body writes the plain container '") + spec.views.front() +
                           "' itself, which a replay on a copy cannot redirect");
    return nullptr;
  }
  return std::make_unique<LoopValidation>(spec, space, frame);
}

LoopValidation::LoopValidation(const codegen::LoopSpec& spec, SpaceAccess& space, LoopFrame& frame)
    : spec_(spec), space_(space), frame_(frame) {
  const auto& arrays = LoopFrameAccess::arrays(frame);
  const auto& reductions = LoopFrameAccess::reductions(frame);
  LoopFrameAccess::arrays(replay_) = arrays;
  LoopFrameAccess::reductions(replay_) = reductions;
  auto& copies = LoopFrameAccess::copies(replay_); // destroyed with replay_
  for (const auto& a : arrays) {
    copies.push_back(a.ops->copy(a.binding.identity));
  }
  LoopFrameAccess::slot_arrays(replay_) = copies;
  std::size_t bytes = 0;
  std::vector<std::size_t> offsets;
  for (const auto& r : reductions) {
    bytes = (bytes + 15) / 16 * 16;
    offsets.push_back(bytes);
    bytes += r.ops->bytes;
  }
  auto& storage = LoopFrameAccess::partial_storage(replay_); // new[]: aligned for any scalar
  storage.reset(new char[bytes + 1]);
  for (std::size_t j = 0; j < reductions.size(); ++j) {
    char* p = storage.get() + offsets[j];
    std::memcpy(p, reductions[j].target, reductions[j].ops->bytes); // the serial run adds to it
    LoopFrameAccess::slot_reductions(replay_).push_back(p);
  }
  if (!space.is_index_space()) {
    space.ensure_ids();
    before_ = gather_records(space);
  }
  set_validation_sink(&order_);
}

LoopValidation::~LoopValidation() {
  set_validation_sink(nullptr);
}

void LoopValidation::finish(CellRunner& runner) {
  set_validation_sink(nullptr);
  RecordSet after;
  if (spec_.writes_records) {
    after = gather_records(space_); // collective
  }
  double replay_s = 0;
  std::string verdict;
  if (comm().rank() == 0) {
    RecordSet replayed;
    verdict = space_.is_index_space() ? replay_points(runner, replay_s)
                                      : replay_records(runner, replayed, replay_s);
    if (verdict.empty()) {
      verdict = compare_state(replayed, after);
    }
  }
  verdict = share_verdict(verdict);
  if (verdict.empty()) {
    verdict = ranks_difference(frame_);
  }
  if (!verdict.empty()) {
    stop("rotor: --rotor-validate: loop " + loop_name(spec_) + ": " + verdict);
  }
  ++validated;
  if (session_state().settings.verbose && comm().rank() == 0 && !quiet()) {
    std::fprintf(stderr,
                 "rotor: --rotor-validate: loop %s: %zu %s, %zu arrays, %zu reductions "
                 "equal to the serial replay of its order (replay %.3f s)\n",
                 loop_name(spec_).c_str(), order_.size(),
                 space_.is_index_space() ? "points" : "records",
                 LoopFrameAccess::arrays(frame_).size(), LoopFrameAccess::reductions(frame_).size(),
                 replay_s);
  }
}

/// Rank 0: the serial replay of order_ (record ids) on the snapshot's records, into `replayed`.
std::string LoopValidation::replay_records(CellRunner& runner, RecordSet& replayed,
                                           double& replay_s) {
  if (std::string bad = order_difference(order_, before_); !bad.empty()) {
    return bad;
  }
  auto* records = dynamic_cast<DatasetRunnerBase*>(&runner);
  if (records == nullptr) {
    return "internal: the loop's runner cannot replay records";
  }
  replayed = in_order(before_, order_, space_.record_bytes());
  before_ = RecordSet(); // not needed any more
  const auto t0 = std::chrono::steady_clock::now();
  records->replay_records(replay_, replayed.bytes.data(), replayed.ids.size());
  replay_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return "";
}

/// Rank 0: the serial replay of order_ (linear point indices) of an index space.
std::string LoopValidation::replay_points(CellRunner& runner, double& replay_s) {
  std::uint64_t count = 1;
  for (std::int64_t e : space_.extents()) {
    count *= static_cast<std::uint64_t>(e);
  }
  if (std::string bad = point_order_difference(order_, count); !bad.empty()) {
    return bad;
  }
  auto* points = dynamic_cast<IndexRunnerBase*>(&runner);
  if (points == nullptr) {
    return "internal: the loop's runner cannot replay points";
  }
  const std::vector<std::size_t> indices(order_.begin(), order_.end());
  const auto t0 = std::chrono::steady_clock::now();
  points->replay_points(replay_, indices.data(), indices.size());
  replay_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return "";
}

/// The parallel run's arrays, reductions and (when the body writes them) records against the
/// replay's.
std::string LoopValidation::compare_state(const RecordSet& replayed, const RecordSet& after) {
  auto& arrays = LoopFrameAccess::arrays(frame_);
  const auto& copies = LoopFrameAccess::copies(replay_);
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    std::string d = array_difference(arrays[i].binding, arrays[i].ops->data(copies[i]));
    if (!d.empty()) {
      return d;
    }
  }
  const auto& reductions = LoopFrameAccess::reductions(frame_);
  const auto& replayed_values = LoopFrameAccess::slot_reductions(replay_);
  for (std::size_t j = 0; j < reductions.size(); ++j) {
    const std::string name = j < spec_.reductions.size() && spec_.reductions[j]
                                 ? spec_.reductions[j]
                                 : "#" + std::to_string(j);
    std::string d =
        reduction_difference(name, *reductions[j].ops, reductions[j].target, replayed_values[j]);
    if (!d.empty()) {
      return d;
    }
  }
  if (spec_.writes_records) {
    return record_difference(after, replayed, space_.record_bytes());
  }
  return "";
}

} // namespace rotor::detail
