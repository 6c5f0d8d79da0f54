#include "RatingsGenerator.h"

#include "Random.h"
#include "TextWriter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

namespace rotor::gen {

namespace {

/// One rating in the shuffle buckets: 12 bytes; the top bit of `item` marks a test rating.
struct PackedRating {
  std::uint32_t user;
  std::uint32_t item;
  float value;
};
constexpr std::uint32_t k_test_bit = 0x80000000u;

/// Degrees of `n` entities by Zipf rank (rank 0 the largest): each >= 1 and <= cap, summing to
/// `total`, proportional to (rank + 1)^-exponent beyond the minimum of 1 (water-filled at cap).
std::vector<std::int64_t> zipf_degrees(std::int64_t n, std::int64_t total, double exponent,
                                       std::int64_t cap) {
  std::vector<double> w(static_cast<std::size_t>(n));
  double weight_sum = 0;
  for (std::int64_t r = 0; r < n; ++r) {
    w[r] = std::pow(static_cast<double>(r + 1), -exponent);
    weight_sum += w[r];
  }
  std::vector<std::int64_t> deg(static_cast<std::size_t>(n), 1);
  std::int64_t extra = total - n; // beyond the minimum of one each
  std::int64_t first_free = 0;
  // Water-filling: the heaviest ranks hit the cap first (weights decrease with rank).
  while (
      first_free<n&& static_cast<double>(extra) * w[first_free] / weight_sum> static_cast<double>(
          cap - 1)) {
    deg[first_free] = cap;
    extra -= cap - 1;
    weight_sum -= w[first_free];
    ++first_free;
  }
  // Cumulative rounding keeps the sum exact up to float error, corrected below.
  double cum = 0;
  std::int64_t rounded_prev = 0;
  for (std::int64_t r = first_free; r < n; ++r) {
    cum += static_cast<double>(extra) * w[r] / weight_sum;
    const auto rounded = static_cast<std::int64_t>(std::llround(cum));
    deg[r] = 1 + std::min(cap - 1, rounded - rounded_prev);
    rounded_prev = rounded;
  }
  std::int64_t sum = 0;
  for (auto d : deg) {
    sum += d;
  }
  for (std::int64_t r = first_free; sum != total && r < n; ++r) {
    if (sum < total && deg[r] < cap) {
      const std::int64_t add = std::min(cap - deg[r], total - sum);
      deg[r] += add;
      sum += add;
    } else if (sum > total && deg[r] > 1) {
      const std::int64_t sub = std::min(deg[r] - 1, sum - total);
      deg[r] -= sub;
      sum -= sub;
    }
  }
  return deg;
}

/// Maps Zipf ranks to ids through a random permutation: result[id] = degree of that id.
std::vector<std::int64_t> degrees_by_id(const std::vector<std::int64_t>& by_rank, Rng& rng) {
  const auto perm = random_permutation(static_cast<std::uint32_t>(by_rank.size()), rng);
  std::vector<std::int64_t> by_id(by_rank.size());
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    by_id[perm[r]] = by_rank[r];
  }
  return by_id;
}

/// Where generated ratings go: straight to the text files, or to shuffle buckets first.
class RatingSink {
public:
  RatingSink(const RatingsSpec& spec, const std::string& train_path, const std::string& test_path)
      : spec_(spec), train_path_(train_path) {
    train_ = std::make_unique<TextWriter>(train_path);
    if (!test_path.empty()) {
      test_ = std::make_unique<TextWriter>(test_path);
    }
    for (TextWriter* w : {train_.get(), test_.get()}) {
      if (w != nullptr && spec.header) {
        const char d = spec.delimiter;
        w->put(std::string("user") + d + "item" + d + "rating\n");
      }
    }
    if (spec.shuffle) {
      const double bytes = static_cast<double>(spec.ratings) * sizeof(PackedRating);
      buckets_ =
          std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(bytes / (16 << 20))));
      for (std::int64_t b = 0; b < buckets_; ++b) {
        bucket_files_.push_back(std::make_unique<TextWriter>(bucket_path(b), 256 << 10));
      }
    }
  }

  std::int64_t buckets() const { return buckets_; }

  void add(std::uint32_t user, std::uint32_t item, float value, bool test, std::uint64_t bucket) {
    if (spec_.shuffle) {
      const PackedRating p{user, item | (test ? k_test_bit : 0u), value};
      bucket_files_[bucket]->put_bytes(&p, sizeof p);
    } else {
      write_line(user, item, value, test);
    }
  }

  /// Shuffles each bucket in memory and writes it out; removes the bucket files.
  RatingsSummary finish() {
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(bucket_files_.size()); ++b) {
      bucket_files_[b]->close();
      std::vector<PackedRating> records = read_bucket(b);
      Rng rng(stream_id(spec_.seed, 3, static_cast<std::uint64_t>(b)));
      for (std::size_t i = records.size(); i > 1; --i) {
        std::swap(records[i - 1], records[rng.below(i)]);
      }
      for (const PackedRating& p : records) {
        write_line(p.user, p.item & ~k_test_bit, p.value, (p.item & k_test_bit) != 0);
      }
      std::remove(bucket_path(b).c_str());
    }
    train_->close();
    if (test_) {
      test_->close();
    }
    return summary_;
  }

private:
  std::string bucket_path(std::int64_t b) const {
    return train_path_ + ".bucket" + std::to_string(b) + ".tmp";
  }
  std::vector<PackedRating> read_bucket(std::int64_t b) const {
    const std::string path = bucket_path(b);
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
      throw std::runtime_error("cannot reopen shuffle bucket " + path);
    }
    std::fseek(f, 0, SEEK_END);
    const long bytes = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    std::vector<PackedRating> records(static_cast<std::size_t>(bytes) / sizeof(PackedRating));
    const std::size_t got = std::fread(records.data(), sizeof(PackedRating), records.size(), f);
    std::fclose(f);
    if (got != records.size()) {
      throw std::runtime_error("short read on shuffle bucket " + path);
    }
    return records;
  }
  void write_line(std::uint32_t user, std::uint32_t item, float value, bool test) {
    TextWriter& w = test ? *test_ : *train_;
    ++(test ? summary_.test : summary_.train);
    w.put_uint(user);
    w.put(spec_.delimiter);
    w.put_uint(item);
    w.put(spec_.delimiter);
    if (spec_.integer_ratings) {
      w.put_uint(static_cast<std::uint64_t>(value));
    } else {
      w.put_fixed(value, 3);
    }
    w.put('\n');
  }

  const RatingsSpec& spec_;
  std::string train_path_;
  std::unique_ptr<TextWriter> train_;
  std::unique_ptr<TextWriter> test_;
  std::int64_t buckets_ = 1;
  std::vector<std::unique_ptr<TextWriter>> bucket_files_;
  RatingsSummary summary_;
};

void check_spec(const RatingsSpec& spec, const std::string& test_path) {
  if (spec.users < 1 || spec.items < 1 || spec.users >= (1LL << 31) || spec.items >= (1LL << 31)) {
    throw std::invalid_argument("users and items must be in [1, 2^31)");
  }
  if (spec.ratings < spec.users) {
    throw std::invalid_argument("ratings (" + std::to_string(spec.ratings) +
                                ") must be at least users (" + std::to_string(spec.users) +
                                "): every user has a rating");
  }
  if (static_cast<double>(spec.ratings) > static_cast<double>(spec.users) * spec.items) {
    throw std::invalid_argument("ratings exceed users x items: no duplicate pairs are allowed");
  }
  if (spec.rank < 1 || spec.rank > 1024) {
    throw std::invalid_argument("rank must be in [1, 1024]");
  }
  if (!(spec.test_fraction >= 0 && spec.test_fraction < 1)) {
    throw std::invalid_argument("test fraction must be in [0, 1)");
  }
  if (spec.test_fraction > 0 && test_path.empty()) {
    throw std::invalid_argument("a test fraction needs a test output file");
  }
}

} // namespace

RatingsSpec ratings_preset(const std::string& name) {
  RatingsSpec s;
  if (name == "1m") {
    s.users = 6040;
    s.items = 3706;
    s.ratings = 1000209;
  } else if (name == "10m") {
    s.users = 69878;
    s.items = 10677;
    s.ratings = 10000054;
  } else if (name == "netflix") {
    s.users = 480189;
    s.items = 17770;
    s.ratings = 100480507;
  } else {
    throw std::invalid_argument("unknown preset '" + name + "' (known: 1m, 10m, netflix)");
  }
  return s;
}

RatingsSummary generate_ratings(const RatingsSpec& spec, const std::string& train_path,
                                const std::string& test_path) {
  check_spec(spec, test_path);
  Rng shape_rng(stream_id(spec.seed, 0));
  const std::vector<std::int64_t> user_degree = degrees_by_id(
      zipf_degrees(spec.users, spec.ratings, spec.user_exponent, spec.items), shape_rng);

  // Item popularity (sampling weights), also Zipf over a random permutation of ids.
  const auto item_perm = random_permutation(static_cast<std::uint32_t>(spec.items), shape_rng);
  std::vector<double> item_weight(static_cast<std::size_t>(spec.items));
  for (std::int64_t r = 0; r < spec.items; ++r) {
    item_weight[item_perm[r]] = std::pow(static_cast<double>(r + 1), -spec.item_exponent);
  }
  const AliasTable item_table(item_weight);

  // Planted factors: p_u . q_i has standard deviation signal_stddev.
  const double factor_sd =
      std::sqrt(spec.signal_stddev / std::sqrt(static_cast<double>(spec.rank)));
  std::vector<float> item_factors(static_cast<std::size_t>(spec.items * spec.rank));
  for (std::int64_t i = 0; i < spec.items; ++i) {
    Rng rng(stream_id(spec.seed, 2, static_cast<std::uint64_t>(i)));
    for (int f = 0; f < spec.rank; ++f) {
      item_factors[i * spec.rank + f] = static_cast<float>(factor_sd * rng.normal());
    }
  }

  RatingSink sink(spec, train_path, test_path);
  std::vector<std::uint32_t> taken_stamp(static_cast<std::size_t>(spec.items), 0);
  std::vector<std::int64_t> item_degree(static_cast<std::size_t>(spec.items), 0);
  std::vector<std::uint32_t> chosen;
  std::vector<std::pair<double, std::uint32_t>> keys;
  std::vector<double> user_factor(static_cast<std::size_t>(spec.rank));
  std::int64_t max_user_degree = 0;

  for (std::int64_t u = 0; u < spec.users; ++u) {
    Rng rng(stream_id(spec.seed, 1, static_cast<std::uint64_t>(u)));
    for (double& x : user_factor) {
      x = factor_sd * rng.normal();
    }
    const std::int64_t d = user_degree[u];
    max_user_degree = std::max(max_user_degree, d);
    chosen.clear();
    if (d * 4 <= spec.items) {
      // Sequential draws without replacement: redraw an item already taken by this user.
      const auto stamp = static_cast<std::uint32_t>(u + 1);
      while (static_cast<std::int64_t>(chosen.size()) < d) {
        const std::uint32_t i = item_table.draw(rng);
        if (taken_stamp[i] != stamp) {
          taken_stamp[i] = stamp;
          chosen.push_back(i);
        }
      }
    } else {
      // Heavy user: weighted sampling without replacement (Efraimidis-Spirakis keys).
      keys.resize(static_cast<std::size_t>(spec.items));
      for (std::int64_t i = 0; i < spec.items; ++i) {
        keys[i] = {std::log(rng.uniform_open0()) / item_weight[i], static_cast<std::uint32_t>(i)};
      }
      std::nth_element(keys.begin(), keys.begin() + (d - 1), keys.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      for (std::int64_t k = 0; k < d; ++k) {
        chosen.push_back(keys[k].second);
      }
      std::sort(chosen.begin(), chosen.end()); // portable: nth_element's order is not
    }
    for (std::uint32_t i : chosen) {
      double dot = 0;
      const float* q = &item_factors[static_cast<std::size_t>(i) * spec.rank];
      for (int f = 0; f < spec.rank; ++f) {
        dot += user_factor[f] * q[f];
      }
      double value = spec.mean + dot + spec.noise_stddev * rng.normal();
      if (spec.integer_ratings) {
        value = std::min(5.0, std::max(1.0, std::round(value)));
      }
      const bool test = spec.test_fraction > 0 && rng.uniform() < spec.test_fraction;
      const std::uint64_t bucket = spec.shuffle ? rng.below(sink.buckets()) : 0;
      sink.add(static_cast<std::uint32_t>(u), i, static_cast<float>(value), test, bucket);
      ++item_degree[i];
    }
  }
  RatingsSummary summary = sink.finish();
  summary.max_user_degree = max_user_degree;
  summary.max_item_degree = *std::max_element(item_degree.begin(), item_degree.end());
  return summary;
}

} // namespace rotor::gen
