// Loader smoke tests on the real data sets in ../shared/data (skipped when absent).
#include "rotor/distarray/Loaders.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace {

std::string data_file(const std::string& relative) {
  return std::string(ROTOR_SHARED_DATA) + "/" + relative;
}

#define REQUIRE_FILE(path)                                                                         \
  if (!std::filesystem::exists(path)) {                                                            \
    GTEST_SKIP() << "data file not present: " << (path);                                           \
  }

struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};

TEST(RealData, KosBagOfWords) {
  const std::string path = data_file("lda/uci-kos/docword.kos.txt");
  REQUIRE_FILE(path);
  rotor::BagOfWordsInfo info;
  auto tokens = rotor::load_uci_bow<Token>(path, &info);
  EXPECT_EQ(info.documents, 3430);
  EXPECT_EQ(info.words, 6906);
  EXPECT_EQ(info.nonzeros, 353160);
  EXPECT_EQ(info.tokens, 467714);
  EXPECT_EQ(tokens.size(), 467714);
  EXPECT_EQ(tokens.extent(&Token::doc), 3430);
  EXPECT_LE(tokens.extent(&Token::word), 6906);
}

TEST(RealData, A9aLibsvm) {
  const std::string train = data_file("libsvm/a9a/a9a");
  const std::string test = data_file("libsvm/a9a/a9a.t");
  REQUIRE_FILE(train);
  REQUIRE_FILE(test);
  auto a = rotor::load_libsvm(train);
  EXPECT_EQ(a.examples.size(), 32561);
  EXPECT_EQ(a.features.nonzeros(), 451592);
  EXPECT_EQ(a.num_features, 123);
  std::int64_t positive = 0;
  for (const auto& e : a.examples) {
    positive += e.label > 0;
  }
  EXPECT_EQ(positive, 7841);
  rotor::LibsvmOptions o;
  o.num_features = 123;
  auto t = rotor::load_libsvm(test, o);
  EXPECT_EQ(t.examples.size(), 16281);
  EXPECT_EQ(t.features.nonzeros(), 225731);
}

TEST(RealData, RestaurantRatingsSemicolonHeader) {
  const std::string path = data_file("ratings/uci-restaurant-consumer/rating_final.csv");
  REQUIRE_FILE(path);
  struct Row {
    std::int32_t user;
    std::int32_t place;
    float rating;
  };
  rotor::CsvOptions o;
  o.delimiter = ';';
  o.columns = {0, 1, 2};
  o.named_fields = {0}; // userID is like "U1077"
  rotor::CsvNames names;
  auto rows = rotor::load_csv<Row>(path, o, &names);
  EXPECT_EQ(rows.size(), 1161);
  ASSERT_EQ(names.names.size(), 1u);
  EXPECT_EQ(names.names[0].size(), 138u);
}

TEST(RealData, HeartScale) {
  const std::string path = data_file("libsvm/heart_scale/heart_scale");
  REQUIRE_FILE(path);
  auto h = rotor::load_libsvm(path);
  EXPECT_EQ(h.examples.size(), 270);
  EXPECT_EQ(h.num_features, 13);
  EXPECT_EQ(h.features.nonzeros(), 3378);
}

} // namespace
