#pragma once
/// \file
/// Netflix-shaped synthetic ratings, streamed to disk.
///
/// \code
///   rotor::gen::RatingsSpec spec = rotor::gen::ratings_preset("10m");
///   spec.seed = 7;
///   rotor::gen::generate_ratings(spec, "train.csv", "test.csv");
/// \endcode
///
/// Shape: user and item degrees follow Zipf power laws (weight of the r-th most active user
/// ~ (r + 1)^-user_exponent; ids are a random permutation of ranks, so ids carry no order);
/// every user has at least one rating; no (user, item) pair appears twice. Values: a planted
/// rank-`rank` model, mean + p_u . q_i + noise, rounded to integers 1..5 (or kept real).
/// Output lines are `user<d>item<d>rating`, 0-based ids, in shuffled order (an external
/// bucket shuffle: memory stays small whatever the size). Same spec -> same bytes.

#include <cstdint>
#include <string>

namespace rotor::gen {

struct RatingsSpec {
  std::int64_t users = 6040;
  std::int64_t items = 3706;
  std::int64_t ratings = 1000209; ///< train + test
  int rank = 10;                  ///< planted factor rank
  double user_exponent = 0.5;     ///< Zipf exponent of user degrees
  double item_exponent = 0.6;     ///< Zipf exponent of item popularity
  double mean = 3.6;
  double signal_stddev = 0.9; ///< standard deviation of p_u . q_i
  double noise_stddev = 0.5;
  bool integer_ratings = true; ///< round and clamp to 1..5 (Netflix stars)
  double test_fraction = 0.0;  ///< share of ratings written to the test file
  bool shuffle = true;
  char delimiter = ',';
  bool header = false; ///< first line `user,item,rating`
  std::uint64_t seed = 1;
};

/// Presets with the sizes of MovieLens 1M / 10M and the Netflix prize set: "1m", "10m",
/// "netflix" (480,189 users, 17,770 items, 100,480,507 ratings). Throws on an unknown name.
RatingsSpec ratings_preset(const std::string& name);

struct RatingsSummary {
  std::int64_t train = 0;
  std::int64_t test = 0;
  std::int64_t max_user_degree = 0;
  std::int64_t max_item_degree = 0;
};

/// Writes the ratings to `train_path` (and the test share to `test_path`, which must be given
/// when spec.test_fraction > 0). Throws std::invalid_argument on an impossible spec (more
/// ratings than user x item pairs allow) and std::runtime_error on I/O failure.
RatingsSummary generate_ratings(const RatingsSpec& spec, const std::string& train_path,
                                const std::string& test_path = "");

} // namespace rotor::gen
