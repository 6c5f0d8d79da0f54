#include "Layout.h"

#include "Arena.h"
#include "BucketInPlace.h"
#include "Comm.h"
#include "LayoutKeys.h"
#include "Pages.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include <unistd.h>

namespace rotor::detail {
namespace {

/// A loop's layout over a space: the loop (FILE, LINE), its workers, plan kind and ranks.
using LayoutKey = std::tuple<std::string, int, int, int, int>;

/// The layouts of the loops over one space, kept by the space (SpaceAccess::layouts: a
/// Dataset's own slot), so they live and die with it.
struct LayoutCache {
  std::map<LayoutKey, LoopLayout> layouts;
};

LayoutCache& layout_cache(SpaceAccess& space) {
  std::shared_ptr<void>& slot = space.layouts();
  if (!slot) {
    slot = std::make_shared<LayoutCache>();
  }
  return *static_cast<LayoutCache*>(slot.get());
}

LayoutKey layout_key(const LayoutRequest& req) {
  return LayoutKey{req.spec->file, req.spec->line, req.workers, static_cast<int>(req.kind),
                   req.ranks};
}

/// Notes the seconds each phase of a layout took (LoopLayout::phase_seconds): wall clock and the
/// process's CPU time (all its threads: a steadier measure on a loaded machine).
class PhaseClock {
public:
  explicit PhaseClock(std::vector<LayoutPhase>& out) : out_(out) {}
  /// The phase `name` ended now (it began at the previous mark or at construction).
  void mark(const char* name) {
    const auto now = std::chrono::steady_clock::now();
    const double cpu = process_cpu_seconds();
    out_.push_back({name, std::chrono::duration<double>(now - last_).count(), cpu - last_cpu_});
    last_ = now;
    last_cpu_ = cpu;
  }

private:
  static double process_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  }

  std::vector<LayoutPhase>& out_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  double last_cpu_ = process_cpu_seconds();
};

/// The order of records inside a cell for ordered loops: by the transformed plan fields (skewed
/// plans), then by every key in declaration order. `a` and `b` are `nkeys` keys each; nothing
/// is allocated (std::stable_sort calls this O(n log n) times).
bool order_key_less(const LayoutRequest& req, const std::int64_t* a, const std::int64_t* b,
                    int nkeys) {
  if (req.matrix && !req.matrix->empty()) {
    for (int fk : req.field_keys) {
      if (a[fk] != b[fk]) {
        return a[fk] < b[fk];
      }
    }
  }
  return std::lexicographical_compare(a, a + nkeys, b, b + nkeys);
}

bool keys_fit(const LoopLayout& l, const LayoutRequest& req, SpaceAccess& space) {
  const Schedule& s = l.schedule;
  const int f = s.fields();
  if (f == 0 && !req.ordered) {
    return true;
  }
  const bool skewed = req.matrix && !req.matrix->empty();
  if (s.cells == 1 && req.ranks == 1 && !req.ordered) {
    return true; // one worker, no order: every record of this rank belongs to the only cell
  }
  if (!req.ordered && !skewed) {
    std::vector<std::int64_t> lo(static_cast<std::size_t>(f)), hi(lo.size());
    for (int c = 0; c < s.cells; ++c) {
      for (int j = 0; j < f; ++j) {
        const int b = s.coordinate(c, j);
        lo[j] = s.block_first(j, b);
        hi[j] = s.block_end(j, b);
      }
      if (!space.keys_in_range(l.seg_begin[c], l.seg_end[c], f, s.field_keys.data(), lo.data(),
                               hi.data())) {
        return false;
      }
    }
    return true;
  }
  std::vector<std::int64_t> keys(static_cast<std::size_t>(space.key_count()) + 1),
      prev(keys.size()), scratch(req.spec->fields.size() + 1);
  for (int c = 0; c < s.cells; ++c) {
    for (std::size_t i = l.seg_begin[c]; i < l.seg_end[c]; ++i) {
      transformed_keys(req, space, i, keys.data(), scratch.data());
      for (int j = 0; j < f; ++j) {
        const int b = s.coordinate(c, j);
        const std::int64_t v = keys[s.field_keys[j]];
        if (v < s.block_first(j, b) || v >= s.block_end(j, b)) {
          return false;
        }
      }
      if (req.ordered && i > l.seg_begin[c] &&
          order_key_less(req, keys.data(), prev.data(), space.key_count())) {
        return false;
      }
      prev.swap(keys);
    }
  }
  return true;
}

bool layout_valid(LoopLayout& l, const LayoutRequest& req, SpaceAccess& space) {
  if (l.data != space.record_data() || l.count != space.local_count()) {
    return false;
  }
  std::uint64_t* version = space.version();
  if (version && *version == l.version) {
    return true; // nothing touched the records since they were laid out or checked
  }
  const bool ok = keys_fit(l, req, space);
  if (ok && version) {
    l.version = *version;
  }
  return ok;
}

/// Ordered loops: sorts each cell's stretch of `order` (grouped by cell, `seg_begin` per cell)
/// by order_key_less over `keys` (nkeys per local record), stably.
void sort_cells_by_keys(const LayoutRequest& req, const std::vector<std::int64_t>& keys, int nkeys,
                        const std::vector<std::size_t>& seg_begin,
                        std::vector<std::uint32_t>& order) {
  const std::int64_t* k = keys.data();
  const auto stride = static_cast<std::size_t>(nkeys);
  for (std::size_t cl = 0; cl + 1 < seg_begin.size(); ++cl) {
    auto first = order.begin() + static_cast<std::ptrdiff_t>(seg_begin[cl]);
    auto last = order.begin() + static_cast<std::ptrdiff_t>(seg_begin[cl + 1]);
    std::stable_sort(first, last, [&](std::uint32_t a, std::uint32_t b) {
      return order_key_less(req, k + a * stride, k + b * stride, nkeys);
    });
  }
}

/// Any-order plans (independent, data_parallel) over records that need not move: this rank's
/// threads split its records as they lie, whatever an earlier loop made of their order.
LoopLayout share_layout(const LayoutRequest& req, SpaceAccess& space) {
  LoopLayout l;
  l.schedule = make_schedule(req.kind, {}, req.workers, req.threads);
  const std::size_t n = space.local_count();
  const int cells = l.schedule.cells;
  l.seg_begin.assign(static_cast<std::size_t>(cells), 0);
  l.seg_end.assign(static_cast<std::size_t>(cells), 0);
  const int first = req.rank * req.threads;
  for (int t = 0; t < req.threads && first + t < cells; ++t) {
    const auto tt = static_cast<std::size_t>(t);
    const auto threads = static_cast<std::size_t>(req.threads);
    l.seg_begin[first + t] = n * tt / threads;
    l.seg_end[first + t] = n * (tt + 1) / threads;
  }
  l.data = space.record_data();
  l.count = n;
  return l;
}

/// Stable counting sort by `bucket(i)` in [0, buckets): order[k] = the local record that goes
/// to position k; `starts` gets buckets + 1 boundaries.
template <class Bucket>
std::vector<std::uint32_t> counting_order(std::size_t n, int buckets, Bucket&& bucket,
                                          std::vector<std::size_t>& starts) {
  if (n >= (std::size_t{1} << 32)) {
    throw std::length_error("rotor: more than 2^32 records on one rank");
  }
  starts.assign(static_cast<std::size_t>(buckets) + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    ++starts[static_cast<std::size_t>(bucket(i)) + 1];
  }
  std::partial_sum(starts.begin(), starts.end(), starts.begin());
  std::vector<std::uint32_t> order(n);
  std::vector<std::size_t> next(starts.begin(), starts.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    order[next[static_cast<std::size_t>(bucket(i))]++] = static_cast<std::uint32_t>(i);
  }
  return order;
}

/// Puts the record at order[k] to position k, in place cycle by cycle (no second copy of the
/// records), with its id and origin. When `track` and the records had no origin yet, their
/// origin becomes `order` itself (local positions are then positions in the dataset's order).
void permute_in_place(SpaceAccess& space, std::vector<std::uint32_t> order, bool track) {
  const std::size_t n = order.size();
  bool identity = true;
  for (std::size_t i = 0; i < n && identity; ++i) {
    identity = order[i] == i;
  }
  if (identity) {
    return;
  }
  const std::size_t rb = space.record_bytes();
  char* recs = space.record_data();
  auto& ids = space.ids();
  const bool with_ids = ids.size() == n;
  std::vector<std::uint32_t>* origin = space.origin();
  const bool with_origin = origin && origin->size() == n && n > 0;
  std::vector<char> tmp(rb);
  std::vector<bool> done(n, false);
  for (std::size_t start = 0; start < n; ++start) {
    if (done[start] || order[start] == start) {
      continue;
    }
    std::memcpy(tmp.data(), recs + start * rb, rb);
    const std::uint64_t tmp_id = with_ids ? ids[start] : 0;
    const std::uint32_t tmp_origin = with_origin ? (*origin)[start] : 0;
    std::size_t j = start;
    while (order[j] != start) {
      std::memcpy(recs + j * rb, recs + order[j] * rb, rb);
      if (with_ids) {
        ids[j] = ids[order[j]];
      }
      if (with_origin) {
        (*origin)[j] = (*origin)[order[j]];
      }
      done[j] = true;
      j = order[j];
    }
    std::memcpy(recs + j * rb, tmp.data(), rb);
    if (with_ids) {
      ids[j] = tmp_id;
    }
    if (with_origin) {
      (*origin)[j] = tmp_origin;
    }
    done[j] = true;
  }
  if (track && !with_origin && origin) {
    *origin = std::move(order);
  }
}

/// Groups this rank's records stably by `bucket(i)` in [0, buckets), in place, with their ids and
/// origins (when `track` and the records had no origin yet, it becomes their position before);
/// returns the buckets + 1 boundaries. Block-wise (BucketInPlace.h) unless there are too many
/// buckets for that, then by a counting order applied cycle by cycle.
/// The columns moved with the records when they are grouped: the records, their ids (when kept)
/// and their origins (when kept; created from the current positions when `track` and not set
/// yet).
std::vector<RowColumn> record_columns(SpaceAccess& space, bool track) {
  const std::size_t n = space.local_count();
  std::vector<RowColumn> columns{{space.record_data(), space.record_bytes()}};
  if (space.ids().size() == n) {
    columns.push_back({reinterpret_cast<char*>(space.ids().data()), sizeof(std::uint64_t)});
  }
  std::vector<std::uint32_t>* origin = space.origin();
  if (origin && origin->size() != n && track) {
    origin->resize(n);
    std::iota(origin->begin(), origin->end(), std::uint32_t{0});
  }
  if (origin && origin->size() == n) {
    columns.push_back({reinterpret_cast<char*>(origin->data()), sizeof(std::uint32_t)});
  }
  return columns;
}

std::size_t row_bytes(const std::vector<RowColumn>& columns) {
  std::size_t bytes = 0;
  for (const RowColumn& c : columns) {
    bytes += c.width;
  }
  return bytes;
}

template <class Bucket>
std::vector<std::size_t> group_in_place(SpaceAccess& space, int buckets, Bucket&& bucket,
                                        bool track) {
  const std::size_t n = space.local_count();
  std::vector<std::size_t> starts(static_cast<std::size_t>(buckets) + 1, 0);
  bool sorted = true;
  int last = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int b = bucket(i);
    sorted = sorted && b >= last;
    last = b;
    ++starts[static_cast<std::size_t>(b) + 1];
  }
  std::partial_sum(starts.begin(), starts.end(), starts.begin());
  if (sorted) {
    return starts;
  }
  const std::vector<RowColumn> columns = record_columns(space, track);
  if (const std::size_t block = bucket_block_rows(n, buckets, row_bytes(columns))) {
    stable_bucket_in_place(starts, bucket, columns, block);
  } else {
    std::vector<std::size_t> unused;
    permute_in_place(space, counting_order(n, buckets, bucket, unused), false);
  }
  return starts;
}

/// The memory a layout may borrow for one column's copy (an eighth of the machine's).
std::size_t copy_budget() {
  static const std::size_t bytes = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) *
                                   static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) / 8;
  return bytes;
}

/// Groups rows [0, n) of `columns` stably by `bucket_of[i]` in [0, buckets) on up to `threads`
/// threads: each thread counts its contiguous piece, then scatters it into a copy of the column
/// (a piece's rows of a bucket follow the earlier pieces'), and the copy goes back in parallel.
/// Two sequential passes and a scatter into `buckets` streams per column, no per-row calls;
/// holds one copy of the widest column, reused by every column (the caller checks
/// copy_budget()). Returns the buckets' boundaries (buckets + 1); `moved` tells whether any
/// row moved (false: the rows were grouped already).
std::vector<std::size_t> group_by_scatter(const std::vector<RowColumn>& columns,
                                          const std::uint16_t* bucket_of, std::size_t n,
                                          int buckets, int threads, bool& moved) {
  const auto nb = static_cast<std::size_t>(buckets);
  const auto pieces = std::clamp<std::size_t>(n >> 16, 1, static_cast<std::size_t>(threads));
  const auto piece_begin = [&](std::size_t p) { return n * p / pieces; };
  std::vector<std::vector<std::size_t>> next(pieces, std::vector<std::size_t>(nb, 0));
  std::vector<char> sorted(pieces, 1);
  in_pieces(n, static_cast<int>(pieces), [&](std::size_t begin, std::size_t end, std::size_t p) {
    std::vector<std::size_t>& count = next[p];
    for (std::size_t i = begin; i < end; ++i) {
      ++count[bucket_of[i]];
      sorted[p] = sorted[p] && (i == begin || bucket_of[i - 1] <= bucket_of[i]);
    }
  });
  std::vector<std::size_t> starts(nb + 1, 0);
  for (std::size_t b = 0, at = 0; b < nb; ++b) { // next[p][b]: where piece p's first row of b goes
    starts[b] = at;
    for (std::size_t p = 0; p < pieces; ++p) {
      at += std::exchange(next[p][b], at);
    }
    starts[b + 1] = at;
  }
  bool in_order = true;
  for (std::size_t p = 0; p < pieces; ++p) {
    const std::size_t b = piece_begin(p);
    in_order = in_order && sorted[p] && (p == 0 || b == 0 || bucket_of[b - 1] <= bucket_of[b]);
  }
  moved = !in_order;
  if (in_order) {
    return starts;
  }
  std::size_t widest = 0;
  for (const RowColumn& col : columns) {
    widest = std::max(widest, col.width);
  }
  PageBuffer copy(n * widest); // one for every column: its pages are faulted in once
  for (const RowColumn& col : columns) {
    const std::size_t w = col.width;
    in_pieces(n, static_cast<int>(pieces), [&](std::size_t begin, std::size_t end, std::size_t p) {
      std::vector<std::size_t> at = next[p];
      for (std::size_t i = begin; i < end; ++i) {
        copy_row(copy.data() + at[bucket_of[i]]++ * w, col.data + i * w, w);
      }
    });
    in_pieces(n, static_cast<int>(pieces), [&](std::size_t begin, std::size_t end, std::size_t) {
      std::memcpy(col.data + begin * w, copy.data() + begin * w, (end - begin) * w);
    });
  }
  return starts;
}

/// Replicated records at several ranks: each rank keeps the records of its own cells (compacted
/// in place, order kept), remembering their positions; the dataset becomes distributed.
template <class RankOf>
void keep_own_records(SpaceAccess& space, RankOf&& rank_of, bool track,
                      std::vector<std::int64_t>* keys, int nkeys) {
  const int me = comm().rank();
  const std::size_t n = space.local_count(), rb = space.record_bytes();
  char* recs = space.record_data();
  auto& ids = space.ids();
  const bool with_ids = ids.size() == n;
  std::vector<std::uint32_t>* origin = space.origin();
  const bool had_origin = origin && origin->size() == n && n > 0;
  std::vector<std::uint32_t> kept_origin;
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (rank_of(i) != me) {
      continue;
    }
    if (k != i) {
      std::memmove(recs + k * rb, recs + i * rb, rb);
      if (with_ids) {
        ids[k] = ids[i];
      }
      if (keys) {
        std::copy(keys->begin() + i * nkeys, keys->begin() + (i + 1) * nkeys,
                  keys->begin() + k * nkeys);
      }
    }
    if (had_origin) {
      (*origin)[k] = (*origin)[i];
    } else if (track) {
      kept_origin.push_back(static_cast<std::uint32_t>(i));
    }
    ++k;
  }
  space.resize_local(k, true);
  if (with_ids) {
    ids.resize(k);
  }
  if (had_origin) {
    origin->resize(k);
  } else if (track) {
    *origin = std::move(kept_origin);
  }
  if (keys) {
    keys->resize(k * static_cast<std::size_t>(nkeys));
  }
}

/// Bytes of one column a rank sends to (and receives from) one peer per exchange round: the
/// exchange holds about one copy of the records plus a round's worth.
constexpr std::size_t k_round_bytes = std::size_t{4} << 20;

/// One per-record column of a dataset as the exchange moves it (the records, their ids, their
/// origins): bytes per record, where it lies, and how it shrinks, makes room and grows.
struct Column {
  std::size_t bytes = 0;
  std::function<char*()> data;
  std::function<void(std::size_t)> resize;  ///< within the capacity reserved
  std::function<void(std::size_t)> reserve; ///< reserve_releasing
};

template <class T> Column vector_column(std::vector<T>& v) {
  return {sizeof(T), [&v] { return reinterpret_cast<char*>(v.data()); },
          [&v](std::size_t k) { v.resize(k); }, [&v](std::size_t k) { reserve_releasing(v, k); }};
}

/// Moves `col` between ranks once it is grouped by destination (this rank's own `kept` records
/// first, then the group for rank q at begin_of[q]; counts[r * ranks + q]: records r sends to
/// q), in rounds of k_round_bytes per peer: after each round the pages of the records sent go
/// back to the system and what arrived waits in page buffers, so the rank never holds a second
/// copy of its records (no receive buffer for all, no growth copy). Afterwards the column holds
/// the records of lower ranks, its kept ones, those of higher ranks (source-rank order).
void exchange_column(const Column& col, const std::vector<std::size_t>& begin_of,
                     const std::vector<std::uint64_t>& counts, std::size_t kept) {
  Comm& c = comm();
  const int me = c.rank(), ranks = c.size();
  constexpr int tag = 31001;
  const std::size_t eb = col.bytes;
  const std::size_t per_round = std::max<std::size_t>(1, k_round_bytes / eb);
  auto to = [&](int q) { return static_cast<std::size_t>(counts[me * ranks + q]); };
  auto from = [&](int r) { return static_cast<std::size_t>(counts[r * ranks + me]); };
  std::vector<std::vector<PageBuffer>> arrived(static_cast<std::size_t>(ranks));
  std::vector<char*> released(static_cast<std::size_t>(ranks));
  for (int q = 0; q < ranks; ++q) {
    released[q] = col.data() + begin_of[q] * eb;
  }
  for (std::size_t done = 0;; done += per_round) {
    std::vector<Comm::Request> reqs;
    for (int r = 0; r < ranks; ++r) {
      if (r != me && from(r) > done) {
        const std::size_t cnt = std::min(per_round, from(r) - done);
        arrived[r].emplace_back(cnt * eb);
        reqs.push_back(c.irecv(arrived[r].back().data(), cnt * eb, r, tag));
      }
    }
    char* base = col.data();
    for (int q = 0; q < ranks; ++q) {
      if (q != me && to(q) > done) {
        const std::size_t cnt = std::min(per_round, to(q) - done);
        reqs.push_back(c.isend(base + (begin_of[q] + done) * eb, cnt * eb, q, tag));
      }
    }
    if (reqs.empty()) {
      break;
    }
    c.wait_all(reqs);
    for (int q = 0; q < ranks; ++q) {
      if (q != me) {
        const std::size_t sent = std::min(to(q), done + per_round);
        released[q] = release_pages(released[q], base + (begin_of[q] + sent) * eb);
      }
    }
  }
  std::size_t incoming = 0, lower = 0;
  for (int r = 0; r < ranks; ++r) {
    incoming += r == me ? 0 : from(r);
    lower += r < me ? from(r) : 0;
  }
  col.resize(kept); // the sent records' pages are already back; no copy
  col.reserve(kept + incoming);
  std::size_t size = kept;
  for (int r = 0; r < ranks; ++r) {
    for (PageBuffer& b : arrived[r]) {
      col.resize(size + b.size() / eb); // touches only this piece's pages
      std::memcpy(col.data() + size * eb, b.data(), b.size());
      size += b.size() / eb;
      b = PageBuffer(0);
    }
  }
  // kept, lower ranks', higher ranks' -> lower ranks', kept, higher ranks' (in place)
  char* d = col.data();
  std::rotate(d, d + kept * eb, d + (kept + lower) * eb);
}

/// Distributed records: every record goes to the rank `rank_of(i)`. The records are grouped by
/// destination in place and exchanged in bounded rounds (exchange_column); the records this
/// rank receives and keeps end up in source-rank order. Ids and origins (set from the global
/// positions `offset + i` when `track` and not set yet) travel with them.
template <class RankOf>
void exchange_records(SpaceAccess& space, RankOf&& rank_of, bool track, std::uint64_t offset) {
  Comm& c = comm();
  const int me = c.rank(), ranks = c.size();
  std::size_t n = space.local_count();
  std::vector<std::uint32_t>* origin = space.origin();
  if (!track && origin) {
    origin->clear();
  }
  if (track && origin->size() != n) {
    origin->resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      (*origin)[i] = static_cast<std::uint32_t>(offset + i);
    }
  }
  std::int64_t with_ids = space.ids().size() == n && n > 0 ? 1 : 0;
  c.allreduce_max(&with_ids, 1);
  if (with_ids && space.ids().size() != n) {
    throw std::logic_error("rotor: internal: record ids kept on some ranks only");
  }
  // grouped by destination (stable: a destination gets its records in their order), this
  // rank's own records first: bucket (dest - me) mod ranks
  const std::vector<std::size_t> grouped = group_in_place(
      space, ranks, [&](std::size_t i) { return (rank_of(i) - me + ranks) % ranks; }, false);
  // counts[r * ranks + q]: records rank r sends to rank q
  std::vector<std::size_t> begin_of(static_cast<std::size_t>(ranks));
  std::vector<std::uint64_t> mine(static_cast<std::size_t>(ranks));
  for (int q = 0; q < ranks; ++q) {
    const int b = (q - me + ranks) % ranks;
    begin_of[q] = grouped[b];
    mine[q] = grouped[b + 1] - grouped[b];
  }
  std::vector<std::size_t> offs;
  std::vector<char> all = c.allgatherv(mine.data(), mine.size() * sizeof(std::uint64_t), offs);
  std::vector<std::uint64_t> counts(all.size() / sizeof(std::uint64_t));
  std::memcpy(counts.data(), all.data(), all.size());

  const std::size_t kept = mine[me];
  Column records{space.record_bytes(), [&] { return space.record_data(); },
                 [&](std::size_t k) { space.resize_local(k, true); },
                 [&](std::size_t k) { space.reserve_local(k); }};
  exchange_column(records, begin_of, counts, kept);
  if (with_ids) {
    exchange_column(vector_column(space.ids()), begin_of, counts, kept);
  } else {
    space.ids().clear();
  }
  if (track) {
    exchange_column(vector_column(*origin), begin_of, counts, kept);
  }
  space.resize_local(space.local_count(), true);
}

/// Records per message of exchange_into_cells: both sides cut a cell's records into pages of
/// this many (about 2 MiB of part-filled pages over all cells, 16 KiB to 1 MiB a page).
std::size_t page_records(std::size_t record_bytes, int cells) {
  const std::size_t bytes =
      std::clamp<std::size_t>((std::size_t{2} << 20) / static_cast<std::size_t>(std::max(cells, 1)),
                              std::size_t{16} << 10, std::size_t{1} << 20);
  return std::max<std::size_t>(1, bytes / record_bytes);
}

/// Distributed records straight into their cells and tiles (several ranks, no order inside a
/// cell, no ids kept, records still in the dataset's order): this rank copies its records into
/// pages per group (a cell's tile: group = cell * per_cell + tile), in order, giving the
/// records' own pages back to the system as it goes; then it fills its new records in their
/// final order (its groups in order, a group's records by source rank) from its own pages and
/// from messages, a window of pages in flight each way. The result is the exchange's followed by
/// the stable sort by cell and tile, without a second copy of the records and without a 4-byte
/// order per record. `layout` gets the cells' segments and tiles; with `track`, the records'
/// origin is kept as two bytes per record: the rank of its group in the laid-out dataset's
/// group order (by rank, then group), which expand_origin_codes turns into positions.
template <class GroupOf>
void exchange_into_cells(SpaceAccess& space, const Schedule& s, int per_cell, GroupOf&& group_of,
                         bool track, LoopLayout& layout) {
  Comm& c = comm();
  const int me = c.rank(), ranks = c.size(), groups = s.cells * per_cell;
  const std::size_t n = space.local_count(), rb = space.record_bytes();
  const auto ugroups = static_cast<std::size_t>(groups);
  auto rank_of_group = [&](int g) { return s.rank_of_worker(s.cell_worker[g / per_cell]); };
  std::vector<int> by_rank(ugroups);
  std::iota(by_rank.begin(), by_rank.end(), 0);
  std::stable_sort(by_rank.begin(), by_rank.end(),
                   [&](int a, int b) { return rank_of_group(a) < rank_of_group(b); });
  std::vector<std::uint16_t> code_of_group(ugroups);
  for (std::size_t k = 0; k < ugroups; ++k) {
    code_of_group[by_rank[k]] = static_cast<std::uint16_t>(k);
  }

  // 1. this rank's records into pages per group
  const std::size_t per_page = page_records(rb, groups);
  std::vector<std::vector<PageBuffer>> pages(ugroups);
  std::vector<std::uint64_t> mine(ugroups, 0);
  std::vector<std::uint16_t> codes(track ? n : 0);
  const char* recs = space.record_data();
  char* released = space.record_data();
  const std::size_t release_every = std::max<std::size_t>(1, (std::size_t{1} << 20) / rb);
  for (std::size_t i = 0; i < n; ++i) {
    const int g = group_of(i);
    const std::size_t at = mine[g]++ % per_page;
    if (at == 0) {
      pages[g].emplace_back(per_page * rb);
    }
    copy_row(pages[g].back().data() + at * rb, recs + i * rb, rb);
    if (track) {
      codes[i] = code_of_group[g];
    }
    if ((i + 1) % release_every == 0 || i + 1 == n) {
      released = release_pages(released, space.record_data() + (i + 1) * rb);
    }
  }
  space.resize_local(0, true);

  // 2. counts[r * groups + g]: records of group g on rank r; this rank's groups' segments
  std::vector<std::size_t> offs;
  std::vector<char> all = c.allgatherv(mine.data(), mine.size() * sizeof(std::uint64_t), offs);
  std::vector<std::uint64_t> counts(all.size() / sizeof(std::uint64_t));
  std::memcpy(counts.data(), all.data(), all.size());
  auto count = [&](int r, int g) {
    return static_cast<std::size_t>(counts[static_cast<std::size_t>(r) * ugroups + g]);
  };
  std::vector<std::size_t> starts(ugroups + 1, 0);
  std::size_t m = 0;
  struct Piece {
    int peer;
    int group;
    std::size_t page, count;
  };
  std::vector<Piece> fill; // this rank's records, in order
  std::vector<std::vector<Piece>> sends(
      static_cast<std::size_t>(ranks)); // per destination, in its order
  for (int g = 0; g < groups; ++g) {
    starts[g] = m;
    const int owner = rank_of_group(g);
    for (int r = 0; r < ranks && owner == me; ++r) {
      for (std::size_t k = 0; k * per_page < count(r, g); ++k) {
        fill.push_back({r, g, k, std::min(per_page, count(r, g) - k * per_page)});
      }
      m += count(r, g);
    }
    for (std::size_t k = 0; owner != me && k * per_page < mine[g]; ++k) {
      sends[owner].push_back(
          {owner, g, k, std::min<std::size_t>(per_page, mine[g] - k * per_page)});
    }
  }
  starts[ugroups] = m;
  layout.seg_begin.assign(static_cast<std::size_t>(s.cells), 0);
  layout.seg_end.assign(static_cast<std::size_t>(s.cells), 0);
  for (int cl = 0; cl < s.cells; ++cl) {
    layout.seg_begin[cl] = starts[static_cast<std::size_t>(cl) * per_cell];
    layout.seg_end[cl] = starts[static_cast<std::size_t>(cl + 1) * per_cell];
  }
  if (per_cell > 1) {
    layout.tile_starts = std::move(starts);
  }
  space.reserve_local(m); // nothing to copy: the record storage stays put from here on

  // 3. fill in order; MPI matches a peer's messages in posting order and both sides list a
  // (source, destination) pair's pages in the destination's order, so the oldest unfinished
  // piece of every window always has its partner posted: no deadlock with bounded windows. A
  // window holds about 8 MiB each way (at least 4 pages): with many groups the pages are small,
  // and a few small pages in flight made the exchange wait on the peer's scheduling (24 s at
  // 1024 groups of 16 KiB pages, np 2 on 2 loaded cores, against 0.2 s of copying)
  constexpr int tag = 31003;
  const std::size_t window = std::max<std::size_t>(4, (std::size_t{8} << 20) / (per_page * rb));
  std::size_t next = 0, size = 0;
  std::vector<Comm::Request> receiving;
  std::vector<std::size_t> sent(static_cast<std::size_t>(ranks), 0);
  std::vector<std::vector<Comm::Request>> sending(static_cast<std::size_t>(ranks));
  std::vector<std::vector<PageBuffer*>> sending_pages(static_cast<std::size_t>(ranks));
  for (;;) {
    while (next < fill.size() && receiving.size() < window) {
      const Piece& p = fill[next++];
      space.resize_local(size + p.count, true);
      char* dst = space.record_data() + size * rb;
      size += p.count;
      if (p.peer == me) {
        PageBuffer& page = pages[p.group][p.page];
        std::memcpy(dst, page.data(), p.count * rb);
        page = PageBuffer(0);
      } else {
        receiving.push_back(c.irecv(dst, p.count * rb, p.peer, tag));
      }
    }
    bool busy = next < fill.size();
    for (int q = 0; q < ranks; ++q) {
      while (sending[q].size() < window && sent[q] < sends[q].size()) {
        const Piece& p = sends[q][sent[q]++];
        PageBuffer& page = pages[p.group][p.page];
        sending[q].push_back(c.isend(page.data(), p.count * rb, q, tag));
        sending_pages[q].push_back(&page);
      }
      // a sent page goes back at once (test_all empties the list when all are done)
      const bool all_sent = c.test_all(sending[q]);
      std::size_t kept = 0;
      for (std::size_t k = 0; k < sending_pages[q].size(); ++k) {
        if (!all_sent && sending[q][k].handle) {
          sending[q][kept] = sending[q][k];
          sending_pages[q][kept++] = sending_pages[q][k];
        } else {
          *sending_pages[q][k] = PageBuffer(0);
        }
      }
      sending[q].resize(kept);
      sending_pages[q].resize(kept);
      busy = busy || kept > 0 || sent[q] < sends[q].size();
    }
    c.test_all(receiving);
    receiving.erase(std::remove_if(receiving.begin(), receiving.end(),
                                   [](const Comm::Request& r) { return r.handle == nullptr; }),
                    receiving.end());
    if (!busy && receiving.empty()) {
      break;
    }
  }
  if (track) {
    space.set_origin_codes(std::move(codes));
  }
}

/// Caches a new layout: the records were (possibly) reordered, so the change counter moves on
/// and other loops' cached layouts are checked against the keys again.
const LoopLayout& store(LayoutCache& cache, const LayoutKey& key, LoopLayout layout,
                        SpaceAccess& space) {
  if (std::uint64_t* version = space.version()) {
    layout.version = ++*version;
  }
  space.drop_loaded_key_counts(); // they describe the records as loaded, no longer as they lie
  layout.data = space.record_data();
  layout.count = space.local_count();
  LoopLayout& slot = cache.layouts[key];
  slot = std::move(layout);
  return slot;
}

/// Tiles per block of each field (Schedule::tiles): `req.blocks` per field when given (rounded
/// up to a multiple of the blocks), else halving the field whose rows take most of a tile until
/// the array rows a tile of every field touches fit `req.cache_bytes` (a tile keeps at least 16
/// key values). Ordered and skewed loops keep one tile per cell (their order is the keys').
/// At most 65535 tiles over all cells (a tile's number fits 16 bits).
void choose_tiles(const LayoutRequest& req, const std::vector<std::int64_t>& range, Schedule& s) {
  const int f = s.fields();
  if (f == 0 || req.ordered || (req.matrix && !req.matrix->empty())) {
    return;
  }
  if (req.blocks > 0) {
    for (int j = 0; j < f; ++j) {
      s.tiles[j] = std::max(1, (req.blocks + s.blocks[j] - 1) / s.blocks[j]);
    }
  } else if (req.cache_bytes > 0 && req.row_bytes.size() == static_cast<std::size_t>(f)) {
    const auto term = [&](int j) {
      return static_cast<double>(range[j]) / (s.blocks[j] * s.tiles[j]) *
             static_cast<double>(req.row_bytes[j]);
    };
    for (;;) {
      double bytes = 0, largest = 0;
      int cut = -1;
      for (int j = 0; j < f; ++j) {
        bytes += term(j);
        const bool can = range[j] / (2 * s.blocks[j] * s.tiles[j]) >= 16;
        if (can && term(j) > largest) {
          largest = term(j);
          cut = j;
        }
      }
      if (bytes <= static_cast<double>(req.cache_bytes) || cut < 0) {
        break;
      }
      s.tiles[cut] *= 2;
    }
  }
  for (int j = 0; j < f; ++j) {
    s.tiles[j] = static_cast<int>(
        std::clamp<std::int64_t>(s.tiles[j], 1, std::max<std::int64_t>(1, range[j] / s.blocks[j])));
  }
  while (static_cast<std::int64_t>(s.cells) * s.tiles_per_cell() > 65535 &&
         *std::max_element(s.tiles.begin(), s.tiles.end()) > 1) {
    *std::max_element(s.tiles.begin(), s.tiles.end()) /= 2;
  }
}

/// Step 1: block boundaries per field, balanced by record counts (global histograms over all
/// ranks when `global`), cut into tiles (choose_tiles) balanced the same way: the blocks are
/// every tiles[j]-th tile boundary. Boundaries fall on bin boundaries (exact below 2^17 values).
void balance_blocks(const LayoutRequest& req, const LayoutKeys& keys, std::size_t n, bool global,
                    Schedule& s, PhaseClock& clock) {
  const int f = static_cast<int>(req.field_keys.size());
  // from the loader's counts of this rank's records where it left them (LoadedKeyCounts.h)
  const bool counted = f > 0 && !keys.loaded_counts().empty();
  KeyRanges r = key_ranges(req, keys, n, global);
  clock.mark(counted ? "ranges from the load" : "ranges");
  std::vector<std::int64_t> range(static_cast<std::size_t>(f));
  for (int j = 0; j < f; ++j) {
    if (r.lo[j] > r.hi[j]) {
      r.lo[j] = 0;
      r.hi[j] = -1;
    }
    range[j] = r.hi[j] - r.lo[j] + 1;
    s.bin_shift.push_back(bin_shift(range[j]));
  }
  choose_tiles(req, range, s);
  const std::vector<std::vector<std::int64_t>> hist = histograms(req, keys, n, r, s, global);
  clock.mark(counted ? "histograms from the load" : "histograms");
  for (int j = 0; j < f; ++j) {
    s.key_min[j] = r.lo[j];
    Boundaries parts = balanced_boundaries(hist[j], s.blocks[j] * s.tiles[j]);
    for (std::int64_t& start : parts.starts) {
      start = std::min(start << s.bin_shift[j], range[j]);
    }
    s.tile_bounds.push_back(std::move(parts));
    Boundaries blocks;
    for (int b = 0; b <= s.blocks[j]; ++b) {
      blocks.starts.push_back(s.tile_bounds[j].starts[static_cast<std::size_t>(b) * s.tiles[j]]);
    }
    s.bounds.push_back(std::move(blocks));
  }
}

/// Where this rank's records lie in the dataset's order: the position of its first record
/// (ranks before it hold the earlier ones) and the records of all ranks.
struct RankShare {
  std::uint64_t offset = 0, total = 0;
};

RankShare rank_share(std::size_t n, bool global) {
  RankShare share{0, n};
  if (!global) {
    return share;
  }
  Comm& c = comm();
  std::vector<std::size_t> offs;
  std::uint64_t mine = n;
  auto all = c.allgatherv(&mine, sizeof mine, offs);
  share.total = 0;
  for (int r = 0; r < c.size(); ++r) {
    std::uint64_t v = 0;
    std::memcpy(&v, all.data() + offs[r], sizeof v);
    if (r < c.rank()) {
      share.offset += v;
    }
    share.total += v;
  }
  return share;
}

/// The bucket of a local record: its cell times the tiles per cell plus its tile (the part of
/// each field, folded as Schedule::cell_of folds blocks, for any number of fields); without
/// fields, the cell of the record's share of the dataset's order. Computed once per record on
/// the session's threads, a block of keys at a time, into 16 bits a record (update() after the
/// records moved).
class RecordBuckets {
public:
  RecordBuckets(const LayoutRequest& req, const Schedule& s, const LayoutKeys& keys,
                RankShare share, SpaceAccess& space)
      : req_(req), s_(s), keys_(keys), share_(share), per_cell_(s.tiles_per_cell()),
        tables_(s.tile_bounds.size()) {
    for (std::size_t j = 0; j < tables_.size(); ++j) {
      // every bin's block (high 16 bits) and tile inside the block (low 16 bits); boundaries
      // fall on bins, parts number below 2^16
      const std::vector<std::int64_t>& starts = s.tile_bounds[j].starts;
      const int shift = s.bin_shift[j];
      const auto tiles = static_cast<std::uint32_t>(s.tiles[j]);
      tables_[j].resize(bins(s.tile_bounds[j].extent(), shift));
      for (std::size_t b = 0; b + 1 < starts.size(); ++b) {
        const auto part = static_cast<std::uint32_t>(b);
        std::fill(tables_[j].begin() + static_cast<std::ptrdiff_t>(bins(starts[b], shift)),
                  tables_[j].begin() + static_cast<std::ptrdiff_t>(bins(starts[b + 1], shift)),
                  (part / tiles) << 16 | part % tiles);
      }
    }
    update(space);
  }
  /// Computes every local record's bucket again (the records moved).
  void update(SpaceAccess& space) {
    ids_.clear();
    if (static_cast<std::int64_t>(s_.cells) * per_cell_ > 65536) {
      return; // computed on every call
    }
    ids_.resize(space.local_count());
    in_pieces(ids_.size(), req_.threads, [&](std::size_t begin, std::size_t end, std::size_t) {
      std::vector<std::int64_t> keys(k_key_block);
      std::vector<std::uint32_t> cell(k_key_block), tile(k_key_block);
      for (std::size_t b = begin; b < end; b += k_key_block) {
        const std::size_t e = std::min(end, b + k_key_block);
        compute_block(b, e, keys.data(), cell.data(), tile.data());
      }
    });
  }
  int tiles_per_cell() const { return per_cell_; }
  /// Every local record's bucket when computed ahead (`n` of them), else null.
  const std::vector<std::uint16_t>* ids(std::size_t n) const {
    return ids_.size() == n ? &ids_ : nullptr;
  }
  /// Hands over the buckets computed ahead (in the records' order before they were grouped:
  /// the records' origin codes, detail::expand_origin_codes); ids() is null afterwards.
  std::vector<std::uint16_t> take_ids() { return std::move(ids_); }
  int bucket(std::size_t i) const {
    if (!ids_.empty()) {
      return ids_[i];
    }
    thread_local std::vector<std::int64_t> buffer;
    buffer.resize(static_cast<std::size_t>(keys_.count()) + 1);
    return compute(i, buffer.data());
  }
  int cell(std::size_t i) const { return bucket(i) / per_cell_; }
  int rank(std::size_t i) const { return s_.rank_of_worker(s_.cell_worker[cell(i)]); }

private:
  int share_cell(std::size_t i) const {
    return static_cast<int>((i + share_.offset) * static_cast<std::uint64_t>(req_.workers) /
                            std::max<std::uint64_t>(share_.total, 1));
  }

  /// Buckets of records [b, e) into ids_ (at most k_key_block; `keys`, `cell`, `tile` are
  /// scratch of that size). A key outside the range the tables cover is an internal error
  /// (the ranges came from these records, or from the loader's counts of them).
  void compute_block(std::size_t b, std::size_t e, std::int64_t* keys, std::uint32_t* cell,
                     std::uint32_t* tile) {
    const std::size_t m = e - b;
    const int f = s_.fields();
    if (f == 0) {
      for (std::size_t i = b; i < e; ++i) {
        ids_[i] = static_cast<std::uint16_t>(share_cell(i));
      }
      return;
    }
    std::fill(cell, cell + m, 0u);
    std::fill(tile, tile + m, 0u);
    bool outside = false;
    for (int j = 0; j < f; ++j) {
      keys_.block(req_.field_keys[j], b, e, keys);
      const std::uint32_t* table = tables_[j].data();
      const std::uint64_t size = tables_[j].size();
      const std::int64_t lo = s_.key_min[j];
      const int shift = s_.bin_shift[j];
      const auto blocks = static_cast<std::uint32_t>(s_.blocks[j]);
      const auto tiles = static_cast<std::uint32_t>(s_.tiles[j]);
      for (std::size_t i = 0; i < m; ++i) {
        const auto bin = static_cast<std::uint64_t>((keys[i] - lo) >> shift);
        outside = outside || bin >= size;
        const std::uint32_t part = table[bin < size ? bin : 0];
        cell[i] = cell[i] * blocks + (part >> 16);
        tile[i] = tile[i] * tiles + (part & 0xffffu);
      }
    }
    if (outside) {
      throw std::logic_error("rotor: internal: a record's key lies outside the layout's key range");
    }
    const auto per_cell = static_cast<std::uint32_t>(per_cell_);
    for (std::size_t i = 0; i < m; ++i) {
      ids_[b + i] = static_cast<std::uint16_t>(cell[i] * per_cell + tile[i]);
    }
  }

  int compute(std::size_t i, std::int64_t* buffer) const {
    const int f = s_.fields();
    if (f == 0) {
      return share_cell(i);
    }
    const std::int64_t* k = keys_.read(i, buffer);
    int cell = 0, tile = 0;
    for (int j = 0; j < f; ++j) {
      const std::int64_t bin = (k[req_.field_keys[j]] - s_.key_min[j]) >> s_.bin_shift[j];
      const std::uint32_t part = tables_[j][static_cast<std::size_t>(bin)];
      cell = cell * s_.blocks[j] + static_cast<int>(part >> 16);
      tile = tile * s_.tiles[j] + static_cast<int>(part & 0xffffu);
    }
    return cell * per_cell_ + tile;
  }

  const LayoutRequest& req_;
  const Schedule& s_;
  const LayoutKeys& keys_;
  RankShare share_;
  const int per_cell_;
  std::vector<std::vector<std::uint32_t>> tables_;
  std::vector<std::uint16_t> ids_;
};

/// Step 3: records move to the rank of their cell's worker. Returns true when they went
/// straight into their cells and tiles and nothing is left to do (the layout's segments and
/// tiles are then set): no order inside a cell, no ids and no earlier origin to carry along
/// (every rank decides alike).
bool move_records(SpaceAccess& space, LayoutKeys& keys, RecordBuckets& buckets, RankShare share,
                  bool track, LoopLayout& layout) {
  const Schedule& s = layout.schedule;
  const bool global = space.distributed();
  std::int64_t carried = space.ids().empty() && !space.has_origin() ? 0 : 1;
  comm().allreduce_max(&carried, 1);
  const int per_cell = buckets.tiles_per_cell();
  if (global && s.fields() > 0 && !keys.kept() && !carried &&
      static_cast<std::int64_t>(s.cells) * per_cell <= 65536) {
    exchange_into_cells(
        space, s, per_cell, [&](std::size_t i) { return buckets.bucket(i); }, track, layout);
    return true;
  }
  auto rank_of = [&](std::size_t i) { return buckets.rank(i); };
  if (!global) {
    keep_own_records(space, rank_of, track, keys.kept() ? &keys.kept_keys() : nullptr,
                     keys.count());
  } else {
    exchange_records(space, rank_of, track, share.offset);
    keys.reload();
  }
  buckets.update(space);
  return false;
}

/// Step 4: sorts this rank's records by cell and by tile inside a cell, in place, stably
/// (records keep their relative order inside a tile: the locality of the input's order
/// survives); ordered loops: by keys inside a cell. Sets the layout's segments and tiles.
void group_by_cell(const LayoutRequest& req, SpaceAccess& space, LayoutKeys& keys,
                   RecordBuckets& buckets, bool track, LoopLayout& layout, PhaseClock& clock) {
  const Schedule& s = layout.schedule;
  const std::size_t n = space.local_count();
  const bool shares = req.ranks > 1 && s.fields() == 0;
  const int first = comm().rank() * req.threads;
  const int per_cell = buckets.tiles_per_cell();
  auto local_bucket = [&](std::size_t i) {
    if (shares) { // shares of the records: this rank's threads split what it holds
      return first + static_cast<int>(i * static_cast<std::size_t>(req.threads) /
                                      std::max<std::size_t>(n, 1));
    }
    return buckets.bucket(i);
  };
  std::vector<std::size_t> starts;
  const std::vector<std::uint16_t>* bucket_ids = buckets.ids(n);
  if (!req.ordered && !shares && bucket_ids != nullptr &&
      n * std::max<std::size_t>(space.record_bytes(), 8) <= copy_budget()) {
    // by cell and tile at once, on the session's threads. Records still in the dataset's order
    // on one rank keep their buckets as origin codes (the grouping is stable: the codes give
    // every record's position back) instead of a position column grouped with them
    const bool codes = track && req.ranks == 1 && !space.has_origin();
    bool moved = false;
    starts = group_by_scatter(record_columns(space, track && !codes), bucket_ids->data(), n,
                              s.cells * per_cell, req.threads, moved);
    if (codes && moved) {
      space.set_origin_codes(buckets.take_ids());
    }
  } else if (!req.ordered) {
    starts = group_in_place(space, s.cells * per_cell, local_bucket, track);
  } else {
    std::vector<std::uint32_t> order = counting_order(n, s.cells, local_bucket, starts);
    sort_cells_by_keys(req, keys.kept_keys(), keys.count(), starts, order);
    permute_in_place(space, std::move(order), track);
  }
  layout.seg_begin.assign(static_cast<std::size_t>(s.cells), 0);
  layout.seg_end.assign(static_cast<std::size_t>(s.cells), 0);
  for (int c = 0; c < s.cells; ++c) {
    layout.seg_begin[c] = starts[static_cast<std::size_t>(c) * per_cell];
    layout.seg_end[c] = starts[static_cast<std::size_t>(c + 1) * per_cell];
  }
  if (per_cell > 1) {
    layout.tile_starts = std::move(starts);
  }
  clock.mark("group");
}

/// A cached layout of this loop that still fits the records, on every rank (collective when the
/// records move); null otherwise.
const LoopLayout* cached_layout(LayoutCache& cache, const LayoutKey& key, const LayoutRequest& req,
                                SpaceAccess& space) {
  auto it = cache.layouts.find(key);
  std::int64_t invalid =
      (it == cache.layouts.end() || !layout_valid(it->second, req, space)) ? 1 : 0;
  if (req.ranks > 1) {
    comm().allreduce_max(&invalid, 1);
  }
  if (invalid) {
    return nullptr;
  }
  it->second.phase_seconds.clear(); // made by an earlier call
  return &it->second;
}

} // namespace

Schedule index_schedule(const LayoutRequest& req, const std::vector<std::int64_t>& extents) {
  Schedule s = make_schedule(req.kind, req.field_keys, req.workers, req.threads);
  s.key_min.assign(s.fields(), 0);
  for (int j = 0; j < s.fields(); ++j) {
    s.bounds.push_back(equal_boundaries(extents[s.field_keys[j]], s.blocks[j]));
  }
  return s;
}

const LoopLayout& record_layout(const LayoutRequest& req, SpaceAccess& space) {
  const bool moves = req.ranks > 1;
  const bool global = moves && space.distributed();
  const int f = static_cast<int>(req.field_keys.size());
  const bool skewed = req.matrix && !req.matrix->empty();
  LayoutCache& cache = layout_cache(space);
  const LayoutKey key = layout_key(req);
  if (f == 0 && !req.ordered && !skewed && (!moves || space.distributed())) {
    return cache.layouts[key] = share_layout(req, space);
  }
  if (const LoopLayout* cached = cached_layout(cache, key, req, space)) {
    return *cached;
  }
  LoopLayout layout;
  Schedule& s = layout.schedule;
  s = make_schedule(req.kind, req.field_keys, req.workers, req.threads);
  s.key_min.assign(f, 0);
  if (s.cells == 1 && !moves && !req.ordered && !skewed) {
    // one cell on one rank (one worker): every record is in it, in the order it has
    for (int j = 0; j < f; ++j) {
      s.bounds.push_back(equal_boundaries(0, 1));
    }
    layout.seg_begin = {0};
    layout.seg_end = {space.local_count()};
    return store(cache, key, std::move(layout), space);
  }
  PhaseClock clock(layout.phase_seconds);
  LayoutKeys keys(req, space);
  balance_blocks(req, keys, space.local_count(), global, s, clock);
  const RankShare share = rank_share(space.local_count(), global);
  // origin: positions fit in 32 bits (larger datasets are not tracked: serial loops then run in
  // the laid-out order)
  const bool track = space.origin() != nullptr && share.total < (std::uint64_t{1} << 32);
  RecordBuckets buckets(req, s, keys, share, space);
  clock.mark("buckets");
  if (moves) {
    const bool done = move_records(space, keys, buckets, share, track, layout);
    clock.mark("move");
    if (done) {
      trim_heap();
      return store(cache, key, std::move(layout), space);
    }
  }
  group_by_cell(req, space, keys, buckets, track, layout, clock);
  keys.release();
  if (moves) {
    // the layout's temporaries (orders, keys, the exchange's) were freed; malloc keeps freed
    // heap memory resident otherwise (~20 MiB at 10M records), for the whole run
    trim_heap();
  }
  return store(cache, key, std::move(layout), space);
}

} // namespace rotor::detail
