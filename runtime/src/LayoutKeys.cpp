#include "LayoutKeys.h"

#include "Comm.h"

#include <climits>

namespace rotor::detail {

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

LayoutKeys::LayoutKeys(const LayoutRequest& req, SpaceAccess& space)
    : req_(req), space_(space), nkeys_(space.key_count()),
      keep_(req.ordered || (req.matrix && !req.matrix->empty())),
      scratch_(req.spec->fields.size() + 1) {
  reload();
}

void LayoutKeys::reload() {
  const std::size_t n = space_.local_count();
  keys_.assign(keep_ ? n * static_cast<std::size_t>(nkeys_) : 0, 0);
  for (std::size_t i = 0; keep_ && i < n; ++i) {
    transformed_keys(req_, space_, i, keys_.data() + i * nkeys_, scratch_.data());
  }
}

const std::int64_t* LayoutKeys::read(std::size_t i, std::int64_t* buffer) const {
  if (keep_) {
    return keys_.data() + i * static_cast<std::size_t>(nkeys_);
  }
  space_.keys(i, buffer);
  return buffer;
}

void LayoutKeys::block(int key, std::size_t begin, std::size_t end, std::int64_t* out) const {
  if (!keep_) {
    space_.key_block(key, begin, end, out);
    return;
  }
  const auto stride = static_cast<std::size_t>(nkeys_);
  for (std::size_t i = begin; i < end; ++i) {
    out[i - begin] = keys_[i * stride + static_cast<std::size_t>(key)];
  }
}

std::vector<const std::vector<std::uint32_t>*> LayoutKeys::loaded_counts() const {
  if (req_.matrix && !req_.matrix->empty()) {
    return {}; // the layout reads transformed keys, the loader counted the records' own
  }
  std::vector<const std::vector<std::uint32_t>*> counts;
  for (int key : req_.field_keys) {
    const std::vector<std::uint32_t>* c = space_.loaded_key_counts(key);
    if (!c) {
      return {};
    }
    counts.push_back(c);
  }
  return counts;
}

namespace {

/// Local key ranges from the loader's counts: the smallest and largest value counted.
KeyRanges ranges_from_counts(const std::vector<const std::vector<std::uint32_t>*>& counts) {
  KeyRanges r{std::vector<std::int64_t>(counts.size(), INT64_MAX),
              std::vector<std::int64_t>(counts.size(), INT64_MIN)};
  for (std::size_t j = 0; j < counts.size(); ++j) {
    const std::vector<std::uint32_t>& c = *counts[j];
    for (std::size_t v = 0; v < c.size(); ++v) {
      if (c[v] != 0) {
        r.lo[j] = std::min(r.lo[j], static_cast<std::int64_t>(v));
        r.hi[j] = static_cast<std::int64_t>(v);
      }
    }
  }
  return r;
}

/// Local key ranges from one pass over the records, a block of keys at a time, on the
/// session's threads.
KeyRanges ranges_from_records(const LayoutRequest& req, const LayoutKeys& keys, std::size_t n) {
  const std::size_t f = req.field_keys.size();
  const auto pieces = static_cast<std::size_t>(std::max(req.threads, 1));
  std::vector<KeyRanges> part(pieces, KeyRanges{std::vector<std::int64_t>(f, INT64_MAX),
                                                std::vector<std::int64_t>(f, INT64_MIN)});
  const std::size_t used =
      in_pieces(n, req.threads, [&](std::size_t begin, std::size_t end, std::size_t p) {
        std::vector<std::int64_t> block(k_key_block);
        KeyRanges& r = part[p];
        for (std::size_t b = begin; b < end; b += k_key_block) {
          const std::size_t e = std::min(end, b + k_key_block);
          for (std::size_t j = 0; j < f; ++j) {
            keys.block(req.field_keys[j], b, e, block.data());
            std::int64_t lo = r.lo[j], hi = r.hi[j];
            for (std::size_t i = 0; i < e - b; ++i) {
              lo = std::min(lo, block[i]);
              hi = std::max(hi, block[i]);
            }
            r.lo[j] = lo;
            r.hi[j] = hi;
          }
        }
      });
  for (std::size_t p = 1; p < used; ++p) {
    for (std::size_t j = 0; j < f; ++j) {
      part[0].lo[j] = std::min(part[0].lo[j], part[p].lo[j]);
      part[0].hi[j] = std::max(part[0].hi[j], part[p].hi[j]);
    }
  }
  return part[0];
}

/// Per-bin counts of each field from the loader's counts (the same counts a pass would find).
std::vector<std::vector<std::int64_t>>
histograms_from_counts(const std::vector<const std::vector<std::uint32_t>*>& counts,
                       const KeyRanges& r, const Schedule& s,
                       const std::vector<std::size_t>& size) {
  std::vector<std::vector<std::int64_t>> total(counts.size());
  for (std::size_t j = 0; j < counts.size(); ++j) {
    total[j].assign(size[j], 0);
    const std::vector<std::uint32_t>& c = *counts[j];
    for (std::size_t v = 0; v < c.size(); ++v) {
      if (c[v] != 0) { // a counted value lies in [lo, hi]: the ranges came from these counts
        total[j][static_cast<std::size_t>((static_cast<std::int64_t>(v) - r.lo[j]) >>
                                          s.bin_shift[j])] += c[v];
      }
    }
  }
  return total;
}

/// Per-bin counts of each field from one pass over the records, a histogram per thread.
std::vector<std::vector<std::int64_t>>
histograms_from_records(const LayoutRequest& req, const LayoutKeys& keys, std::size_t n,
                        const KeyRanges& r, const Schedule& s,
                        const std::vector<std::size_t>& size) {
  const std::size_t f = req.field_keys.size();
  std::vector<std::vector<std::vector<std::int64_t>>> part(
      static_cast<std::size_t>(std::max(req.threads, 1)));
  const std::size_t used =
      in_pieces(n, req.threads, [&](std::size_t begin, std::size_t end, std::size_t p) {
        std::vector<std::vector<std::int64_t>>& h = part[p];
        for (std::size_t j = 0; j < f; ++j) {
          h.emplace_back(size[j], 0);
        }
        std::vector<std::int64_t> block(k_key_block);
        for (std::size_t b = begin; b < end; b += k_key_block) {
          const std::size_t e = std::min(end, b + k_key_block);
          for (std::size_t j = 0; j < f; ++j) {
            keys.block(req.field_keys[j], b, e, block.data());
            std::int64_t* hj = h[j].data();
            const std::int64_t lo = r.lo[j];
            const int shift = s.bin_shift[j];
            for (std::size_t i = 0; i < e - b; ++i) {
              ++hj[static_cast<std::size_t>((block[i] - lo) >> shift)];
            }
          }
        }
      });
  std::vector<std::vector<std::int64_t>> total = std::move(part[0]);
  total.resize(f);
  for (std::size_t j = 0; j < f; ++j) {
    total[j].resize(size[j], 0);
    for (std::size_t p = 1; p < used; ++p) {
      for (std::size_t v = 0; v < size[j]; ++v) {
        total[j][v] += part[p][j][v];
      }
    }
  }
  return total;
}

} // namespace

KeyRanges key_ranges(const LayoutRequest& req, const LayoutKeys& keys, std::size_t n, bool global) {
  const auto counts = keys.loaded_counts();
  KeyRanges r = counts.empty() || req.field_keys.empty() ? ranges_from_records(req, keys, n)
                                                         : ranges_from_counts(counts);
  const std::size_t f = req.field_keys.size();
  if (global && f > 0) {
    comm().allreduce_min(r.lo.data(), f);
    comm().allreduce_max(r.hi.data(), f);
  }
  return r;
}

int bin_shift(std::int64_t range) {
  constexpr std::int64_t k_bins = std::int64_t{1} << 17;
  int shift = 0;
  while (((range + (std::int64_t{1} << shift) - 1) >> shift) > k_bins) {
    ++shift;
  }
  return shift;
}

std::size_t bins(std::int64_t range, int shift) {
  return range <= 0 ? 0
                    : static_cast<std::size_t>((range + (std::int64_t{1} << shift) - 1) >> shift);
}

std::vector<std::vector<std::int64_t>> histograms(const LayoutRequest& req, const LayoutKeys& keys,
                                                  std::size_t n, const KeyRanges& r,
                                                  const Schedule& s, bool global) {
  const std::size_t f = req.field_keys.size();
  std::vector<std::size_t> size(f, 0);
  for (std::size_t j = 0; j < f; ++j) {
    size[j] = bins(r.hi[j] - r.lo[j] + 1, s.bin_shift[j]);
  }
  const auto counts = keys.loaded_counts();
  std::vector<std::vector<std::int64_t>> total =
      counts.empty() || f == 0 ? histograms_from_records(req, keys, n, r, s, size)
                               : histograms_from_counts(counts, r, s, size);
  for (std::size_t j = 0; j < f; ++j) {
    if (global && size[j] > 0) {
      comm().allreduce_sum(total[j].data(), size[j]);
    }
  }
  return total;
}

} // namespace rotor::detail
