// load_csv counts the values of the integer fields it parses (LoadedKeyCounts.h): exact counts
// of ids in [0, 2^22), none for a field with a value outside, nor for named fields, and none
// once the records may have changed.
#include "LoaderTestUtil.h"
#include "rotor/distarray/Loaders.h"
#include "rotor/distarray/detail/DatasetInternals.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

struct Row {
  std::int32_t user;
  std::int64_t item;
  float value;
};

using rotor::detail::DatasetInternals;

const std::vector<std::uint32_t>* user_counts(const rotor::Dataset<Row>& d) {
  return DatasetInternals::loaded_key_counts(d, offsetof(Row, user));
}
const std::vector<std::uint32_t>* item_counts(const rotor::Dataset<Row>& d) {
  return DatasetInternals::loaded_key_counts(d, offsetof(Row, item));
}

TEST(LoadedKeyCounts, CountsEveryValueOfEachIntegerField) {
  rotor_test::TempFile f("user,item,value\n3,0,1.5\n1,2,2\n3,2,1\n\n3,7,4\n");
  rotor::Dataset<Row> d = rotor::load_csv<Row>(f.path());
  ASSERT_NE(user_counts(d), nullptr);
  ASSERT_NE(item_counts(d), nullptr);
  EXPECT_EQ(*user_counts(d), (std::vector<std::uint32_t>{0, 1, 0, 3}));
  EXPECT_EQ(*item_counts(d), (std::vector<std::uint32_t>{1, 0, 2, 0, 0, 0, 0, 1}));
  EXPECT_EQ(DatasetInternals::loaded_key_counts(d, offsetof(Row, value)), nullptr);
}

TEST(LoadedKeyCounts, FieldWithALargeOrNegativeValueIsNotCounted) {
  rotor_test::TempFile large("1,4194304,1\n2,5,1\n"); // 2^22: beyond what is counted
  rotor::Dataset<Row> d = rotor::load_csv<Row>(large.path());
  EXPECT_EQ(item_counts(d), nullptr);
  ASSERT_NE(user_counts(d), nullptr);
  EXPECT_EQ(*user_counts(d), (std::vector<std::uint32_t>{0, 1, 1}));

  rotor_test::TempFile negative("1,-3,1\n2,5,1\n");
  rotor::CsvOptions signed_ids;
  signed_ids.ids_non_negative = false;
  rotor::Dataset<Row> s = rotor::load_csv<Row>(negative.path(), signed_ids);
  EXPECT_EQ(item_counts(s), nullptr);
  EXPECT_NE(user_counts(s), nullptr);
}

TEST(LoadedKeyCounts, NamedFieldIsNotCounted) {
  rotor_test::TempFile f("alice,3,1\nbob,3,2\n");
  rotor::CsvOptions named;
  named.named_fields = {0};
  rotor::Dataset<Row> d = rotor::load_csv<Row>(f.path(), named);
  EXPECT_EQ(user_counts(d), nullptr);
  ASSERT_NE(item_counts(d), nullptr);
  EXPECT_EQ(*item_counts(d), (std::vector<std::uint32_t>{0, 0, 0, 2}));
}

TEST(LoadedKeyCounts, GoneOnceTheRecordsMayHaveChanged) {
  rotor_test::TempFile f("3,0,1\n1,2,2\n");
  rotor::Dataset<Row> d = rotor::load_csv<Row>(f.path());
  const rotor::Dataset<Row>& read_only = d;
  EXPECT_EQ(read_only.begin()->user, 3); // const access changes nothing
  EXPECT_NE(user_counts(d), nullptr);
  d.begin()->user = 1; // non-const access may write keys
  EXPECT_EQ(user_counts(d), nullptr);
  EXPECT_EQ(item_counts(d), nullptr);

  rotor::Dataset<Row> e = rotor::load_csv<Row>(f.path());
  rotor::Dataset<Row> copy = e; // a copy holds the same records: the same counts
  ASSERT_NE(user_counts(copy), nullptr);
  EXPECT_EQ(*user_counts(copy), (std::vector<std::uint32_t>{0, 1, 0, 1}));
  DatasetInternals::drop_loaded_key_counts(e);
  EXPECT_EQ(user_counts(e), nullptr);
}

} // namespace
