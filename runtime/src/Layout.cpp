#include "Layout.h"

#include "Comm.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <tuple>

namespace rotor::detail {
namespace {

using CacheKey = std::tuple<const void*, std::string, int, int, int, int>;
std::map<CacheKey, RecordLayout>& cache() {
  static std::map<CacheKey, RecordLayout> c;
  return c;
}

/// Transformed keys: the plan fields replaced by matrix * (plan fields) when skewed.
void transformed_keys(const LayoutRequest& req, SpaceAccess& space, std::size_t i,
                      std::int64_t* out, std::int64_t* scratch) {
  space.keys(i, out);
  if (!req.matrix || req.matrix->empty()) {
    return;
  }
  const auto& m = *req.matrix;
  const std::size_t f = req.field_keys.size();
  for (std::size_t r = 0; r < f && r < m.size(); ++r) {
    std::int64_t v = 0;
    for (std::size_t c = 0; c < f && c < m[r].size(); ++c) {
      v += m[r][c] * out[req.field_keys[c]];
    }
    scratch[r] = v;
  }
  for (std::size_t r = 0; r < f && r < m.size(); ++r) {
    out[req.field_keys[r]] = scratch[r];
  }
}

bool layout_valid(const RecordLayout& l, const LayoutRequest& req, SpaceAccess& space) {
  if (l.data != space.record_data() || l.count != space.local_count()) {
    return false;
  }
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
      prev(keys.size()), scratch(req.field_keys.size() + 1);
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
  CacheKey key{space.identity(),           req.spec->file, req.spec->line, req.workers,
               static_cast<int>(req.kind), req.ranks};
  auto it = cache().find(key);
  std::int64_t invalid = (it == cache().end() || !layout_valid(it->second, req, space)) ? 1 : 0;
  if (moves) {
    c.allreduce_max(&invalid, 1);
  }
  if (!invalid) {
    return it->second;
  }

  const int nkeys = space.key_count();
  const int f = static_cast<int>(req.field_keys.size());
  std::size_t n = space.local_count();
  // keys are kept in memory only where they are needed again (ordered or skewed loops);
  // otherwise they are extracted from the records on every pass (peak memory ~ the records)
  const bool keep_keys = req.ordered || (req.matrix && !req.matrix->empty());
  std::vector<std::int64_t> keys;
  std::vector<std::int64_t> scratch(static_cast<std::size_t>(f) + 1);
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

  // 2. the cell of every local record
  std::int64_t offset = 0; // global position of this rank's first record (independent plans)
  std::int64_t total = static_cast<std::int64_t>(n);
  if (f == 0 && global) {
    std::vector<std::size_t> offs;
    std::int64_t mine = static_cast<std::int64_t>(n);
    auto all = c.allgatherv(&mine, sizeof mine, offs);
    total = 0;
    for (int r = 0; r < c.size(); ++r) {
      std::int64_t v = 0;
      std::memcpy(&v, all.data() + offs[r], sizeof v);
      if (r < c.rank()) {
        offset += v;
      }
      total += v;
    }
  }
  auto cell_of_record = [&](std::size_t i) {
    if (f == 0) {
      return static_cast<int>((static_cast<std::int64_t>(i) + offset) * req.workers /
                              std::max<std::int64_t>(total, 1));
    }
    int coords[8];
    for (int j = 0; j < f; ++j) {
      coords[j] = s.block_of(j, key_at(i, req.field_keys[j]));
    }
    return s.cell_of(coords);
  };
  std::vector<int> cell(n);
  for (std::size_t i = 0; i < n; ++i) {
    cell[i] = cell_of_record(i);
  }

  // 3. records move to the rank of their cell's worker
  if (moves) {
    const std::size_t rb = space.record_bytes();
    const bool with_ids = !space.ids().empty();
    const int ranks = c.size();
    if (!space.distributed()) {
      // replicated: every rank keeps its own records, nothing is sent
      std::vector<char> mine;
      std::vector<std::uint64_t> ids;
      std::vector<int> kept_cell;
      std::vector<std::int64_t> kept_keys;
      for (std::size_t i = 0; i < n; ++i) {
        if (s.rank_of_worker(s.cell_worker[cell[i]]) != c.rank()) {
          continue;
        }
        mine.insert(mine.end(), space.record_data() + i * rb, space.record_data() + (i + 1) * rb);
        if (with_ids) {
          ids.push_back(space.ids()[i]);
        }
        kept_cell.push_back(cell[i]);
        if (keep_keys) {
          kept_keys.insert(kept_keys.end(), keys.begin() + i * nkeys,
                           keys.begin() + (i + 1) * nkeys);
        }
      }
      space.replace(std::move(mine), std::move(ids), true);
      cell = std::move(kept_cell);
      keys = std::move(kept_keys);
    } else {
      std::vector<std::vector<char>> send(ranks);
      const std::size_t unit = rb + sizeof(std::uint64_t);
      for (std::size_t i = 0; i < n; ++i) {
        auto& out = send[s.rank_of_worker(s.cell_worker[cell[i]])];
        out.insert(out.end(), space.record_data() + i * rb, space.record_data() + (i + 1) * rb);
        std::uint64_t id = with_ids ? space.ids()[i] : 0;
        const char* idp = reinterpret_cast<const char*>(&id);
        out.insert(out.end(), idp, idp + sizeof id);
      }
      auto recv = c.alltoallv(send);
      std::vector<char> mine;
      std::vector<std::uint64_t> ids;
      for (auto& part : recv) {
        for (std::size_t off = 0; off + unit <= part.size(); off += unit) {
          mine.insert(mine.end(), part.data() + off, part.data() + off + rb);
          std::uint64_t id = 0;
          std::memcpy(&id, part.data() + off + rb, sizeof id);
          if (with_ids) {
            ids.push_back(id);
          }
        }
      }
      space.replace(std::move(mine), std::move(ids), true);
      n = space.local_count();
      materialize();
      cell.assign(n, 0);
      if (f == 0) {
        // shares of the records: this rank's threads split what it received
        for (std::size_t i = 0; i < n; ++i) {
          cell[i] = c.rank() * req.threads +
                    static_cast<int>(i * static_cast<std::size_t>(req.threads) / n);
        }
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          cell[i] = cell_of_record(i);
        }
      }
    }
    n = space.local_count();
  }

  // 4. sort this rank's records by cell (stable; ordered loops: by keys inside a cell)
  std::vector<std::size_t> count(static_cast<std::size_t>(s.cells) + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    ++count[static_cast<std::size_t>(cell[i]) + 1];
  }
  std::partial_sum(count.begin(), count.end(), count.begin());
  layout.seg_begin.assign(count.begin(), count.end() - 1);
  layout.seg_end.assign(count.begin() + 1, count.end());
  std::vector<std::size_t> order(n);
  {
    std::vector<std::size_t> next(layout.seg_begin);
    for (std::size_t i = 0; i < n; ++i) {
      order[next[cell[i]]++] = i;
    }
  }
  if (req.ordered) {
    for (int cl = 0; cl < s.cells; ++cl) {
      auto first = order.begin() + static_cast<std::ptrdiff_t>(layout.seg_begin[cl]);
      auto last = order.begin() + static_cast<std::ptrdiff_t>(layout.seg_end[cl]);
      std::stable_sort(first, last, [&](std::size_t a, std::size_t b) {
        std::vector<std::int64_t> ka(keys.begin() + a * nkeys, keys.begin() + (a + 1) * nkeys);
        std::vector<std::int64_t> kb(keys.begin() + b * nkeys, keys.begin() + (b + 1) * nkeys);
        return order_key(req, ka) < order_key(req, kb);
      });
    }
  }
  bool identity_order = true;
  for (std::size_t i = 0; i < n && identity_order; ++i) {
    identity_order = order[i] == i;
  }
  if (!identity_order) {
    // in place, cycle by cycle (no second copy of the records): position i receives order[i]
    const std::size_t rb = space.record_bytes();
    char* recs = space.record_data();
    auto& ids = space.ids();
    const bool with_ids = !ids.empty();
    std::vector<char> tmp(rb);
    std::vector<bool> done(n, false);
    for (std::size_t start = 0; start < n; ++start) {
      if (done[start] || order[start] == start) {
        continue;
      }
      std::memcpy(tmp.data(), recs + start * rb, rb);
      const std::uint64_t tmp_id = with_ids ? ids[start] : 0;
      std::size_t j = start;
      while (order[j] != start) {
        std::memcpy(recs + j * rb, recs + order[j] * rb, rb);
        if (with_ids) {
          ids[j] = ids[order[j]];
        }
        done[j] = true;
        j = order[j];
      }
      std::memcpy(recs + j * rb, tmp.data(), rb);
      if (with_ids) {
        ids[j] = tmp_id;
      }
      done[j] = true;
    }
  }
  layout.data = space.record_data();
  layout.count = n;
  auto& slot = cache()[key];
  slot = std::move(layout);
  return slot;
}

} // namespace rotor::detail
