#include "Layout.h"

#include "BucketInPlace.h"
#include "Comm.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

namespace rotor::detail {
namespace {

using CacheKey = std::tuple<const void*, std::string, int, int, int, int>;
std::map<CacheKey, RecordLayout>& cache() {
  static std::map<CacheKey, RecordLayout> c;
  return c;
}

/// Transformed keys: the plan fields replaced by matrix * (plan fields) when skewed. The matrix
/// is over all of the plan's fields, also where the base partitions fewer (one_d: the first).
void transformed_keys(const LayoutRequest& req, SpaceAccess& space, std::size_t i,
                      std::int64_t* out, std::int64_t* scratch) {
  space.keys(i, out);
  if (!req.matrix || req.matrix->empty()) {
    return;
  }
  const auto& m = *req.matrix;
  const std::vector<int>& fields = req.spec->fields;
  const std::size_t f = fields.size();
  for (std::size_t r = 0; r < f && r < m.size(); ++r) {
    std::int64_t v = 0;
    for (std::size_t c = 0; c < f && c < m[r].size(); ++c) {
      v += m[r][c] * out[fields[c]];
    }
    scratch[r] = v;
  }
  for (std::size_t r = 0; r < f && r < m.size(); ++r) {
    out[fields[r]] = scratch[r];
  }
}

bool keys_fit(const RecordLayout& l, const LayoutRequest& req, SpaceAccess& space) {
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
      if (req.ordered && i > l.seg_begin[c] && keys < prev) {
        return false;
      }
      prev = keys;
    }
  }
  return true;
}

bool layout_valid(RecordLayout& l, const LayoutRequest& req, SpaceAccess& space) {
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

/// Sort key of a record inside its cell for ordered loops: the transformed plan fields, then
/// every key in declaration order.
std::vector<std::int64_t> order_key(const LayoutRequest& req, const std::vector<std::int64_t>& k) {
  std::vector<std::int64_t> out;
  if (req.matrix && !req.matrix->empty()) {
    for (int fk : req.field_keys) {
      out.push_back(k[fk]);
    }
  }
  out.insert(out.end(), k.begin(), k.end());
  return out;
}

/// Any-order plans (independent, data_parallel) over records that need not move: this rank's
/// threads split its records as they lie, whatever an earlier loop made of their order.
RecordLayout share_layout(const LayoutRequest& req, SpaceAccess& space) {
  RecordLayout l;
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
  std::size_t row_bytes = 0;
  for (const RowColumn& c : columns) {
    row_bytes += c.width;
  }
  if (const std::size_t block = bucket_block_rows(n, buckets, row_bytes)) {
    stable_bucket_in_place(starts, bucket, columns, block);
  } else {
    std::vector<std::size_t> unused;
    permute_in_place(space, counting_order(n, buckets, bucket, unused), false);
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

/// Posts sends (or receives) of `bytes` at `data` in pieces below MPI's int count.
void post_pieces(std::vector<Comm::Request>& reqs, char* data, std::size_t bytes, int peer,
                 bool send) {
  constexpr std::size_t piece = std::size_t{1} << 30;
  constexpr int tag = 31001;
  for (std::size_t off = 0; off < bytes; off += piece) {
    const std::size_t len = std::min(piece, bytes - off);
    reqs.push_back(send ? comm().isend(data + off, len, peer, tag)
                        : comm().irecv(data + off, len, peer, tag));
  }
}

/// Distributed records: every record goes to the rank `rank_of(i)`. The records are grouped by
/// destination in place and sent from where they lie; what arrives is appended to the records
/// this rank keeps (sources in rank order). Ids and origins (set from the global positions
/// `offset + i` when `track` and not set yet) travel with them.
template <class RankOf>
void exchange_records(SpaceAccess& space, RankOf&& rank_of, bool track, std::uint64_t offset) {
  Comm& c = comm();
  const int me = c.rank(), ranks = c.size();
  std::size_t n = space.local_count();
  const std::size_t rb = space.record_bytes();
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
  std::size_t incoming = 0;
  for (int r = 0; r < ranks; ++r) {
    incoming += r == me ? 0 : counts[static_cast<std::size_t>(r) * ranks + me];
  }
  std::vector<char> in(incoming * rb);
  std::vector<std::uint64_t> in_ids(with_ids ? incoming : 0);
  std::vector<std::uint32_t> in_origin(track ? incoming : 0);
  std::vector<Comm::Request> reqs;
  std::size_t at = 0;
  for (int r = 0; r < ranks; ++r) {
    const std::size_t cnt = r == me ? 0 : counts[static_cast<std::size_t>(r) * ranks + me];
    if (cnt) {
      post_pieces(reqs, in.data() + at * rb, cnt * rb, r, false);
      if (with_ids) {
        post_pieces(reqs, reinterpret_cast<char*>(in_ids.data() + at), cnt * 8, r, false);
      }
      if (track) {
        post_pieces(reqs, reinterpret_cast<char*>(in_origin.data() + at), cnt * 4, r, false);
      }
    }
    at += cnt;
  }
  char* recs = space.record_data();
  auto& ids = space.ids();
  for (int q = 0; q < ranks; ++q) {
    const std::size_t cnt = q == me ? 0 : mine[q];
    if (cnt) {
      post_pieces(reqs, recs + begin_of[q] * rb, cnt * rb, q, true);
      if (with_ids) {
        post_pieces(reqs, reinterpret_cast<char*>(ids.data() + begin_of[q]), cnt * 8, q, true);
      }
      if (track) {
        post_pieces(reqs, reinterpret_cast<char*>(origin->data() + begin_of[q]), cnt * 4, q, true);
      }
    }
  }
  c.wait_all(reqs);

  // the records of this rank in source-rank order (its own among them at its rank's place), so
  // a cell's records keep the dataset's order
  const std::size_t kept = mine[me], first = begin_of[me];
  std::size_t lower = 0; // records that came from lower ranks
  for (int r = 0; r < me; ++r) {
    lower += counts[static_cast<std::size_t>(r) * ranks + me];
  }
  const std::size_t m = kept + incoming;
  space.resize_local(std::max(n, m), true);
  recs = space.record_data();
  std::memmove(recs + lower * rb, recs + first * rb, kept * rb);
  std::memcpy(recs, in.data(), lower * rb);
  std::memcpy(recs + (lower + kept) * rb, in.data() + lower * rb, (incoming - lower) * rb);
  space.resize_local(m, true);
  in = std::vector<char>();
  auto place = [&](auto& local, const auto& arrived) {
    local.resize(std::max(n, m));
    std::move_backward(local.begin() + first, local.begin() + first + kept,
                       local.begin() + lower + kept);
    std::copy(arrived.begin(), arrived.begin() + lower, local.begin());
    std::copy(arrived.begin() + lower, arrived.end(), local.begin() + lower + kept);
    local.resize(m);
  };
  if (with_ids) {
    place(ids, in_ids);
  } else {
    ids.clear();
  }
  if (track) {
    place(*origin, in_origin);
  }
}

/// Caches a new layout: the records were (possibly) reordered, so the change counter moves on
/// and other loops' cached layouts are checked against the keys again.
const RecordLayout& store(const CacheKey& key, RecordLayout layout, SpaceAccess& space) {
  if (std::uint64_t* version = space.version()) {
    layout.version = ++*version;
  }
  layout.data = space.record_data();
  layout.count = space.local_count();
  auto& slot = cache()[key];
  slot = std::move(layout);
  return slot;
}

} // namespace

void clear_layout_cache() {
  cache().clear();
}

Schedule index_schedule(const LayoutRequest& req, const std::vector<std::int64_t>& extents) {
  Schedule s = make_schedule(req.kind, req.field_keys, req.workers, req.threads);
  s.key_min.assign(s.fields(), 0);
  for (int j = 0; j < s.fields(); ++j) {
    s.bounds.push_back(equal_boundaries(extents[s.field_keys[j]], s.blocks[j]));
  }
  return s;
}

const RecordLayout& record_layout(const LayoutRequest& req, SpaceAccess& space) {
  Comm& c = comm();
  const bool moves = req.ranks > 1;
  const bool global = moves && space.distributed();
  const int f = static_cast<int>(req.field_keys.size());
  const bool skewed = req.matrix && !req.matrix->empty();
  CacheKey key{space.identity(),           req.spec->file, req.spec->line, req.workers,
               static_cast<int>(req.kind), req.ranks};
  if (f == 0 && !req.ordered && !skewed && (!moves || space.distributed())) {
    return cache()[key] = share_layout(req, space);
  }
  auto it = cache().find(key);
  std::int64_t invalid = (it == cache().end() || !layout_valid(it->second, req, space)) ? 1 : 0;
  if (moves) {
    c.allreduce_max(&invalid, 1);
  }
  if (!invalid) {
    return it->second;
  }

  const int nkeys = space.key_count();
  std::size_t n = space.local_count();
  // keys are kept in memory only where they are needed again (ordered or skewed loops);
  // otherwise they are extracted from the records on every pass (peak memory ~ the records)
  const bool keep_keys = req.ordered || skewed;
  std::vector<std::int64_t> keys;
  std::vector<std::int64_t> scratch(req.spec->fields.size() + 1);
  std::vector<std::int64_t> one(static_cast<std::size_t>(nkeys) + 1);
  auto materialize = [&] {
    keys.assign(keep_keys ? n * static_cast<std::size_t>(nkeys) : 0, 0);
    for (std::size_t i = 0; keep_keys && i < n; ++i) {
      transformed_keys(req, space, i, keys.data() + i * nkeys, scratch.data());
    }
  };
  auto key_at = [&](std::size_t i, int fk) {
    if (keep_keys) {
      return keys[i * nkeys + fk];
    }
    space.keys(i, one.data());
    return one[fk];
  };
  materialize();

  // 1. block boundaries per field, balanced by record counts (global histograms)
  RecordLayout layout;
  Schedule& s = layout.schedule;
  s = make_schedule(req.kind, req.field_keys, req.workers, req.threads);
  s.key_min.assign(f, 0);
  if (s.cells == 1 && !moves && !req.ordered && !skewed) {
    // one cell on one rank (one worker): every record is in it, in the order it has
    for (int j = 0; j < f; ++j) {
      s.bounds.push_back(equal_boundaries(0, 1));
    }
    layout.seg_begin = {0};
    layout.seg_end = {n};
    return store(key, std::move(layout), space);
  }
  for (int j = 0; j < f; ++j) {
    const int fk = req.field_keys[j];
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t v = key_at(i, fk);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (global) {
      c.allreduce_min(&lo, 1);
      c.allreduce_max(&hi, 1);
    }
    if (lo > hi) {
      lo = 0;
      hi = -1;
    }
    s.key_min[j] = lo;
    const std::int64_t range = hi - lo + 1;
    if (range > 64 * 1024 * 1024) {
      s.bounds.push_back(equal_boundaries(range, s.blocks[j]));
      continue;
    }
    std::vector<std::int64_t> hist(static_cast<std::size_t>(range), 0);
    for (std::size_t i = 0; i < n; ++i) {
      ++hist[static_cast<std::size_t>(key_at(i, fk) - lo)];
    }
    if (global) {
      c.allreduce_sum(hist.data(), hist.size());
    }
    s.bounds.push_back(balanced_boundaries(hist, s.blocks[j]));
  }

  // 2. the cell of a local record; the global position of this rank's first record (its
  // records' positions in the dataset's order, rank by rank)
  std::uint64_t offset = 0, total = n;
  if (global) {
    std::vector<std::size_t> offs;
    std::uint64_t mine = n;
    auto all = c.allgatherv(&mine, sizeof mine, offs);
    total = 0;
    for (int r = 0; r < c.size(); ++r) {
      std::uint64_t v = 0;
      std::memcpy(&v, all.data() + offs[r], sizeof v);
      if (r < c.rank()) {
        offset += v;
      }
      total += v;
    }
  }
  // origin: positions fit in 32 bits (larger datasets are not tracked: serial loops then run
  // in the laid-out order)
  const bool track = space.origin() != nullptr && total < (std::uint64_t{1} << 32);
  // block of each key value per field, as a table where the key range is small
  std::vector<std::vector<int>> block_table(static_cast<std::size_t>(f));
  for (int j = 0; j < f; ++j) {
    const std::vector<std::int64_t>& starts = s.bounds[j].starts;
    if (s.bounds[j].extent() <= (std::int64_t{1} << 24)) {
      block_table[j].resize(static_cast<std::size_t>(s.bounds[j].extent()));
      for (std::size_t b = 0; b + 1 < starts.size(); ++b) {
        std::fill(block_table[j].begin() + starts[b], block_table[j].begin() + starts[b + 1],
                  static_cast<int>(b));
      }
    }
  }
  auto cell_of_record = [&](std::size_t i) {
    if (f == 0) {
      return static_cast<int>((i + offset) * static_cast<std::uint64_t>(req.workers) /
                              std::max<std::uint64_t>(total, 1));
    }
    const std::int64_t* k = one.data();
    if (keep_keys) {
      k = keys.data() + i * static_cast<std::size_t>(nkeys);
    } else {
      space.keys(i, one.data());
    }
    int coords[8];
    for (int j = 0; j < f; ++j) {
      const std::int64_t v = k[req.field_keys[j]];
      const std::int64_t rel = v - s.key_min[j];
      const auto& table = block_table[j];
      coords[j] = rel >= 0 && rel < static_cast<std::int64_t>(table.size())
                      ? table[static_cast<std::size_t>(rel)]
                      : s.block_of(j, v);
    }
    return s.cell_of(coords);
  };
  auto rank_of_record = [&](std::size_t i) {
    return s.rank_of_worker(s.cell_worker[cell_of_record(i)]);
  };

  // 3. records move to the rank of their cell's worker
  if (moves) {
    if (!space.distributed()) {
      keep_own_records(space, rank_of_record, track, keep_keys ? &keys : nullptr, nkeys);
    } else {
      exchange_records(space, rank_of_record, track, offset);
      n = space.local_count();
      materialize();
    }
    n = space.local_count();
  }

  // 4. sort this rank's records by cell (stable; ordered loops: by keys inside a cell), in place
  auto local_cell = [&](std::size_t i) {
    if (moves && f == 0) { // shares of the records: this rank's threads split what it holds
      return c.rank() * req.threads + static_cast<int>(i * static_cast<std::size_t>(req.threads) /
                                                       std::max<std::size_t>(n, 1));
    }
    return cell_of_record(i);
  };
  // a stable order by cell (records keep their relative order inside a cell: locality of the
  // input's order survives), ordered loops: by keys inside a cell; applied in place
  if (!req.ordered) {
    layout.seg_begin = group_in_place(space, s.cells, local_cell, track);
    layout.seg_end.assign(layout.seg_begin.begin() + 1, layout.seg_begin.end());
    layout.seg_begin.pop_back();
    keys = std::vector<std::int64_t>();
    return store(key, std::move(layout), space);
  }
  std::vector<std::uint32_t> order = counting_order(n, s.cells, local_cell, layout.seg_begin);
  layout.seg_end.assign(layout.seg_begin.begin() + 1, layout.seg_begin.end());
  layout.seg_begin.pop_back();
  for (int cl = 0; cl < s.cells; ++cl) {
    auto first = order.begin() + static_cast<std::ptrdiff_t>(layout.seg_begin[cl]);
    auto last = order.begin() + static_cast<std::ptrdiff_t>(layout.seg_end[cl]);
    std::stable_sort(first, last, [&](std::uint32_t a, std::uint32_t b) {
      std::vector<std::int64_t> ka(keys.begin() + a * nkeys, keys.begin() + (a + 1) * nkeys);
      std::vector<std::int64_t> kb(keys.begin() + b * nkeys, keys.begin() + (b + 1) * nkeys);
      return order_key(req, ka) < order_key(req, kb);
    });
  }
  keys = std::vector<std::int64_t>();
  permute_in_place(space, std::move(order), track);
  return store(key, std::move(layout), space);
}

} // namespace rotor::detail
