// rotor-gen: determinism, shape (counts, ranges, no duplicate pairs) and degree skew.

#include "CorpusGenerator.h"
#include "RatingsGenerator.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using rotor::gen::CorpusSpec;
using rotor::gen::RatingsSpec;

std::string temp_path(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("rotor_gen_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Triple {
  long long user;
  long long item;
  double value;
};

std::vector<Triple> read_ratings(const std::string& path) {
  std::vector<Triple> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    Triple t{};
    char c1 = 0;
    char c2 = 0;
    std::istringstream ls(line);
    ls >> t.user >> c1 >> t.item >> c2 >> t.value;
    EXPECT_TRUE(ls && c1 == ',' && c2 == ',') << "bad line '" << line << "' in " << path;
    out.push_back(t);
  }
  return out;
}

RatingsSpec small_spec() {
  RatingsSpec s;
  s.users = 2000;
  s.items = 800;
  s.ratings = 60000;
  s.seed = 11;
  return s;
}

TEST(RatingsGenerator, SameSeedSameBytesOtherSeedOtherBytes) {
  RatingsSpec s = small_spec();
  s.test_fraction = 0.1;
  rotor::gen::generate_ratings(s, temp_path("a.csv"), temp_path("a.test.csv"));
  rotor::gen::generate_ratings(s, temp_path("b.csv"), temp_path("b.test.csv"));
  EXPECT_EQ(slurp(temp_path("a.csv")), slurp(temp_path("b.csv")));
  EXPECT_EQ(slurp(temp_path("a.test.csv")), slurp(temp_path("b.test.csv")));
  s.seed = 12;
  rotor::gen::generate_ratings(s, temp_path("c.csv"), temp_path("c.test.csv"));
  EXPECT_NE(slurp(temp_path("a.csv")), slurp(temp_path("c.csv")));
  // No shuffle buckets are left behind.
  EXPECT_FALSE(fs::exists(temp_path("a.csv") + ".bucket0.tmp"));
}

TEST(RatingsGenerator, ExactCountsRangesAndNoDuplicatePairs) {
  RatingsSpec s = small_spec();
  s.test_fraction = 0.2;
  const auto summary = rotor::gen::generate_ratings(s, temp_path("s.csv"), temp_path("s.t.csv"));
  auto train = read_ratings(temp_path("s.csv"));
  const auto test = read_ratings(temp_path("s.t.csv"));
  EXPECT_EQ(static_cast<long long>(train.size()), summary.train);
  EXPECT_EQ(static_cast<long long>(test.size()), summary.test);
  EXPECT_EQ(summary.train + summary.test, s.ratings);
  EXPECT_NEAR(static_cast<double>(summary.test) / s.ratings, 0.2, 0.02);
  train.insert(train.end(), test.begin(), test.end());
  std::set<long long> pairs;
  std::vector<int> user_seen(s.users, 0);
  double sum = 0;
  for (const Triple& t : train) {
    ASSERT_GE(t.user, 0);
    ASSERT_LT(t.user, s.users);
    ASSERT_GE(t.item, 0);
    ASSERT_LT(t.item, s.items);
    ASSERT_GE(t.value, 1.0);
    ASSERT_LE(t.value, 5.0);
    EXPECT_EQ(t.value, static_cast<int>(t.value));
    EXPECT_TRUE(pairs.insert(t.user * s.items + t.item).second)
        << "duplicate pair " << t.user << "," << t.item;
    user_seen[t.user] = 1;
    sum += t.value;
  }
  EXPECT_EQ(std::accumulate(user_seen.begin(), user_seen.end(), 0), s.users)
      << "every user has a rating";
  EXPECT_NEAR(sum / train.size(), s.mean, 0.3);
}

TEST(RatingsGenerator, DegreesArePowerLawSkewed) {
  RatingsSpec s = small_spec();
  const auto summary = rotor::gen::generate_ratings(s, temp_path("d.csv"));
  const auto all = read_ratings(temp_path("d.csv"));
  std::vector<long long> user_deg(s.users, 0);
  std::vector<long long> item_deg(s.items, 0);
  for (const Triple& t : all) {
    ++user_deg[t.user];
    ++item_deg[t.item];
  }
  const double mean_user = static_cast<double>(s.ratings) / s.users;
  const double mean_item = static_cast<double>(s.ratings) / s.items;
  const long long max_user = *std::max_element(user_deg.begin(), user_deg.end());
  const long long max_item = *std::max_element(item_deg.begin(), item_deg.end());
  EXPECT_EQ(max_user, summary.max_user_degree);
  EXPECT_EQ(max_item, summary.max_item_degree);
  EXPECT_GT(max_user, 8 * mean_user);
  EXPECT_GT(max_item, 4 * mean_item);
  // The top 1% of users hold far more than 1% of the ratings.
  std::sort(user_deg.rbegin(), user_deg.rend());
  const long long top = std::accumulate(user_deg.begin(), user_deg.begin() + s.users / 100, 0LL);
  EXPECT_GT(static_cast<double>(top) / s.ratings, 0.05);
  // Shuffled: the file is not grouped by user.
  int user_changes = 0;
  for (std::size_t i = 1; i < 200; ++i) {
    user_changes += all[i].user != all[i - 1].user;
  }
  EXPECT_GT(user_changes, 150);
}

TEST(RatingsGenerator, DenseUsersUseEveryItemOnce) {
  RatingsSpec s;
  s.users = 50;
  s.items = 40;
  s.ratings = 1500; // 75% dense: heavy users go through weighted sampling without replacement
  s.shuffle = false;
  s.delimiter = ',';
  const auto summary = rotor::gen::generate_ratings(s, temp_path("dense.csv"));
  EXPECT_LE(summary.max_user_degree, s.items);
  const auto all = read_ratings(temp_path("dense.csv"));
  std::set<long long> pairs;
  for (const Triple& t : all) {
    EXPECT_TRUE(pairs.insert(t.user * s.items + t.item).second);
  }
  EXPECT_EQ(static_cast<long long>(pairs.size()), s.ratings);
}

TEST(RatingsGenerator, RejectsImpossibleSpecs) {
  RatingsSpec s;
  s.users = 10;
  s.items = 10;
  s.ratings = 101;
  EXPECT_THROW(rotor::gen::generate_ratings(s, temp_path("x.csv")), std::invalid_argument);
  s.ratings = 5; // fewer than users
  EXPECT_THROW(rotor::gen::generate_ratings(s, temp_path("x.csv")), std::invalid_argument);
  EXPECT_THROW(rotor::gen::ratings_preset("100b"), std::invalid_argument);
}

TEST(CorpusGenerator, HeaderMatchesBodyAndIsDeterministic) {
  CorpusSpec c;
  c.documents = 300;
  c.vocabulary = 2000;
  c.topics = 10;
  c.mean_length = 80;
  const auto summary =
      rotor::gen::generate_corpus(c, temp_path("docword.a.txt"), temp_path("v.txt"));
  rotor::gen::generate_corpus(c, temp_path("docword.b.txt"));
  EXPECT_EQ(slurp(temp_path("docword.a.txt")), slurp(temp_path("docword.b.txt")));

  std::ifstream in(temp_path("docword.a.txt"));
  long long D = 0;
  long long W = 0;
  long long NNZ = 0;
  in >> D >> W >> NNZ;
  EXPECT_EQ(D, c.documents);
  EXPECT_EQ(W, c.vocabulary);
  EXPECT_EQ(NNZ, summary.nonzeros);
  long long d = 0;
  long long w = 0;
  long long n = 0;
  long long prev_d = 0;
  long long prev_w = 0;
  long long lines = 0;
  long long tokens = 0;
  std::vector<long long> word_freq(W, 0);
  while (in >> d >> w >> n) {
    ++lines;
    tokens += n;
    ASSERT_GE(d, 1);
    ASSERT_LE(d, D);
    ASSERT_GE(w, 1);
    ASSERT_LE(w, W);
    ASSERT_GE(n, 1);
    ASSERT_TRUE(d > prev_d || (d == prev_d && w > prev_w)) << "sorted by doc, then word";
    prev_d = d;
    prev_w = w;
    word_freq[w - 1] += n;
  }
  EXPECT_EQ(lines, NNZ);
  EXPECT_EQ(tokens, summary.tokens);
  EXPECT_NEAR(static_cast<double>(tokens) / D, c.mean_length, 0.15 * c.mean_length);
  // Zipfian vocabulary: the most frequent word is far above the mean.
  const long long top = *std::max_element(word_freq.begin(), word_freq.end());
  EXPECT_GT(top, 20.0 * tokens / W);
  std::ifstream vocab(temp_path("v.txt"));
  std::set<std::string> words;
  std::string word;
  while (vocab >> word) {
    words.insert(word);
  }
  EXPECT_EQ(static_cast<long long>(words.size()), W) << "vocabulary words are distinct";
}

} // namespace
