#include "rotor/gpu/WaveSchedule.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace rotor::gpu {

std::int64_t Waves::largest_wave() const {
  std::int64_t m = 0;
  for (int w = 0; w < waves(); ++w) {
    m = std::max(m, wave_size(w));
  }
  return m;
}

namespace {

/// Waves with a size limit: the first wave at or after `w` with room, found through "next wave
/// that may have room" links compressed as they are followed (amortised near O(1)).
class WaveRoom {
public:
  explicit WaveRoom(std::int64_t limit) : limit_(limit) {}

  int place(int w) {
    w = find(w);
    if (w == static_cast<int>(size_.size())) {
      size_.push_back(0);
      next_.push_back(w + 1);
    }
    if (++size_[w] == limit_) {
      next_[w] = w + 1;
    }
    return w;
  }

private:
  int find(int w) {
    int root = w;
    while (root < static_cast<int>(size_.size()) && limit_ > 0 && size_[root] >= limit_) {
      root = next_[root];
    }
    while (w != root) { // compress
      const int n = next_[w];
      next_[w] = root;
      w = n;
    }
    return root;
  }

  std::int64_t limit_;
  std::vector<std::int64_t> size_;
  std::vector<int> next_;
};

/// Fills `order` and `wave_start` from `wave_of`: a counting sort by wave, stable in record order.
void sort_by_wave(Waves& out) {
  const std::size_t records = out.wave_of.size();
  int waves = 0;
  for (std::size_t r = 0; r < records; ++r) {
    waves = std::max(waves, out.wave_of[r] + 1);
  }
  out.wave_start.assign(static_cast<std::size_t>(waves) + 1, 0);
  for (std::size_t r = 0; r < records; ++r) {
    ++out.wave_start[static_cast<std::size_t>(out.wave_of[r]) + 1];
  }
  for (int w = 0; w < waves; ++w) {
    out.wave_start[w + 1] += out.wave_start[w];
  }
  std::vector<std::int64_t> fill(out.wave_start.begin(), out.wave_start.end() - 1);
  out.order.resize(records);
  for (std::size_t r = 0; r < records; ++r) {
    out.order[static_cast<std::size_t>(fill[out.wave_of[r]]++)] = static_cast<std::int64_t>(r);
  }
}

} // namespace

Waves build_waves(const std::int32_t* user, const std::int32_t* item, std::size_t records,
                  std::int32_t users, std::int32_t items, const WaveOptions& options) {
  if (options.max_wave_size < 0) {
    throw std::invalid_argument("build_waves: max_wave_size must be >= 0");
  }
  // next_wave[key]: the first wave a later record of the key may use (one past its last record's)
  std::vector<std::int32_t> user_next(static_cast<std::size_t>(std::max(users, 0)), 0);
  std::vector<std::int32_t> item_next(static_cast<std::size_t>(std::max(items, 0)), 0);
  Waves out;
  out.wave_of.resize(records);
  WaveRoom room(options.max_wave_size);
  for (std::size_t r = 0; r < records; ++r) {
    const std::int32_t u = user[r];
    const std::int32_t i = item[r];
    if (u < 0 || u >= users || i < 0 || i >= items) {
      throw std::invalid_argument("build_waves: record " + std::to_string(r) + " has key (" +
                                  std::to_string(u) + ", " + std::to_string(i) + ") outside [0, " +
                                  std::to_string(users) + ") x [0, " + std::to_string(items) + ")");
    }
    const int w = room.place(std::max(user_next[u], item_next[i]));
    out.wave_of[r] = w;
    user_next[u] = w + 1;
    item_next[i] = w + 1;
  }
  sort_by_wave(out);
  return out;
}

Waves build_key_waves(const std::int64_t* keys, std::size_t records, int fields) {
  if (fields < 0) {
    throw std::invalid_argument("build_key_waves: fields must be >= 0");
  }
  // next_wave[f][key]: the first wave a later record with this key in field f may use
  std::vector<std::unordered_map<std::int64_t, std::int32_t>> next_wave(
      static_cast<std::size_t>(fields));
  Waves out;
  out.wave_of.resize(records);
  for (std::size_t r = 0; r < records; ++r) {
    const std::int64_t* k = keys + r * static_cast<std::size_t>(fields);
    std::int32_t w = 0;
    for (int f = 0; f < fields; ++f) {
      const auto it = next_wave[f].find(k[f]);
      w = it == next_wave[f].end() ? w : std::max(w, it->second);
    }
    out.wave_of[r] = w;
    for (int f = 0; f < fields; ++f) {
      next_wave[f][k[f]] = w + 1;
    }
  }
  sort_by_wave(out);
  return out;
}

std::string check_waves(const Waves& waves, const std::int32_t* user, const std::int32_t* item,
                        std::size_t records, std::int32_t users, std::int32_t items) {
  if (waves.order.size() != records) {
    return "order has " + std::to_string(waves.order.size()) + " entries for " +
           std::to_string(records) + " records";
  }
  if (waves.wave_start.empty() ? records != 0
                               : (waves.wave_start.front() != 0 ||
                                  waves.wave_start.back() != static_cast<std::int64_t>(records))) {
    return "wave_start does not cover the records";
  }
  std::vector<char> seen(records, 0);
  std::vector<std::int64_t> user_last(static_cast<std::size_t>(users), -1);
  std::vector<std::int64_t> item_last(static_cast<std::size_t>(items), -1);
  std::vector<int> user_wave(static_cast<std::size_t>(users), -1);
  std::vector<int> item_wave(static_cast<std::size_t>(items), -1);
  for (int w = 0; w < waves.waves(); ++w) {
    if (waves.wave_start[w + 1] < waves.wave_start[w]) {
      return "wave " + std::to_string(w) + " ends before it starts";
    }
    for (std::int64_t p = waves.wave_start[w]; p < waves.wave_start[w + 1]; ++p) {
      const std::int64_t r = waves.order[static_cast<std::size_t>(p)];
      if (r < 0 || r >= static_cast<std::int64_t>(records)) {
        return "order[" + std::to_string(p) + "] = " + std::to_string(r) + " is not a record";
      }
      if (seen[static_cast<std::size_t>(r)]++) {
        return "record " + std::to_string(r) + " appears twice";
      }
      const auto u = static_cast<std::size_t>(user[r]);
      const auto i = static_cast<std::size_t>(item[r]);
      if (user_wave[u] == w) {
        return "wave " + std::to_string(w) + " has two records of user " + std::to_string(u);
      }
      if (item_wave[i] == w) {
        return "wave " + std::to_string(w) + " has two records of item " + std::to_string(i);
      }
      if (user_last[u] > r || item_last[i] > r) {
        return "record " + std::to_string(r) + " runs after a later record of its key";
      }
      user_wave[u] = item_wave[i] = w;
      user_last[u] = item_last[i] = r;
    }
  }
  return {};
}

int tail_start(const std::vector<std::int64_t>& wave_start, std::int64_t small) {
  int w = wave_start.empty() ? 0 : static_cast<int>(wave_start.size()) - 1;
  while (w > 0 &&
         wave_start[static_cast<std::size_t>(w)] - wave_start[static_cast<std::size_t>(w) - 1] <=
             small) {
    --w;
  }
  return w;
}

std::vector<std::vector<BlockId>> rotation_block_order(int gpus) {
  if (gpus < 1) {
    throw std::invalid_argument("rotation_block_order: gpus must be >= 1");
  }
  std::vector<std::vector<BlockId>> steps(static_cast<std::size_t>(gpus));
  for (int p = 0; p < gpus; ++p) {
    for (int g = 0; g < gpus; ++g) {
      steps[p].push_back({g, (g + p) % gpus});
    }
  }
  return steps;
}

int key_block(std::int64_t key, std::int64_t extent, int blocks) {
  return static_cast<int>(key * blocks / std::max<std::int64_t>(extent, 1));
}

std::vector<std::vector<std::int64_t>> split_into_blocks(const std::int32_t* user,
                                                         const std::int32_t* item,
                                                         std::size_t records, std::int32_t users,
                                                         std::int32_t items, int blocks) {
  if (blocks < 1) {
    throw std::invalid_argument("split_into_blocks: blocks must be >= 1");
  }
  std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(blocks) * blocks);
  for (std::size_t r = 0; r < records; ++r) {
    if (user[r] < 0 || user[r] >= users || item[r] < 0 || item[r] >= items) {
      throw std::invalid_argument("split_into_blocks: record " + std::to_string(r) +
                                  " has a key out of range");
    }
    const int b = key_block(user[r], users, blocks) * blocks + key_block(item[r], items, blocks);
    out[static_cast<std::size_t>(b)].push_back(static_cast<std::int64_t>(r));
  }
  return out;
}

} // namespace rotor::gpu
