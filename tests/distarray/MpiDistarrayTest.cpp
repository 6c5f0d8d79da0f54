// distarray under MPI (np 2 and 4): parallel loading equals a whole read, errors reach every
// rank with the global line number and the rank that found them, and whole-dataset operations
// give the same result on any number of ranks.
#include "rotor/distarray/detail/Collective.h"
#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/Loaders.h"
#include "rotor/distarray/Partition.h"
#include "rotor/distarray/detail/DatasetInternals.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
  bool operator==(const Rating& o) const {
    return user == o.user && item == o.item && value == o.value;
  }
};

struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};

rotor::detail::Collective& comm() {
  return rotor::detail::collective();
}

/// A file written by rank 0 (same path on every rank), removed at the end of the scope.
class SharedFile {
public:
  SharedFile(const std::string& name, const std::string& contents) {
    std::int64_t pid = ::getpid();
    comm().broadcast(&pid, sizeof pid, 0);
    path_ =
        (std::filesystem::temp_directory_path() / ("rotor_mpi_" + std::to_string(pid) + "_" + name))
            .string();
    if (comm().rank() == 0) {
      std::ofstream(path_, std::ios::binary) << contents;
    }
    comm().barrier();
  }
  ~SharedFile() {
    comm().barrier();
    if (comm().rank() == 0) {
      std::filesystem::remove(path_);
    }
  }
  SharedFile(const SharedFile&) = delete;
  SharedFile& operator=(const SharedFile&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

template <class R> std::vector<R> gather(const rotor::Dataset<R>& d) {
  std::vector<char> bytes =
      rotor::detail::gather_all(d.local_size() ? &d[0] : nullptr, d.local_size() * sizeof(R));
  std::vector<R> all(bytes.size() / sizeof(R));
  if (!bytes.empty()) {
    std::memcpy(static_cast<void*>(all.data()), bytes.data(), bytes.size());
  }
  return all;
}

std::vector<Rating> expected_ratings(int n) {
  std::vector<Rating> v;
  for (int i = 0; i < n; ++i) {
    v.push_back({(i * 37) % 101, (i * 11) % 53, static_cast<float>(i % 17) * 0.25f});
  }
  return v;
}

std::string csv_text(const std::vector<Rating>& v) {
  std::string s = "user,item,value\n";
  for (const Rating& r : v) {
    s += std::to_string(r.user) + "," + std::to_string(r.item) + "," + std::to_string(r.value) +
         "\n";
  }
  return s;
}

TEST(MpiLoad, CsvSharesCoverTheFileInOrder) {
  const auto expected = expected_ratings(2000);
  SharedFile f("r.csv", csv_text(expected));
  auto d = rotor::load_csv<Rating>(f.path());
  EXPECT_EQ(d.size(), 2000);
  EXPECT_GT(d.local_size(), 0u);
  EXPECT_EQ(gather(d), expected);
  EXPECT_EQ(d.extent(&Rating::user), 101);
}

TEST(MpiLoad, ErrorsReachEveryRankWithGlobalLine) {
  auto v = expected_ratings(1000);
  std::string text = csv_text(v);
  // Line 991 (header is line 1) is in the last rank's byte range.
  std::size_t pos = 0;
  for (int line = 1; line < 991; ++line) {
    pos = text.find('\n', pos) + 1;
  }
  text.insert(pos, "x");
  SharedFile f("bad.csv", text);
  try {
    rotor::load_csv<Rating>(f.path());
    ADD_FAILURE() << "no error";
  } catch (const rotor::InputError& e) {
    EXPECT_EQ(e.line(), 991) << e.what();
    EXPECT_EQ(e.rank(), comm().size() - 1) << e.what();
    const std::string prefix =
        "[rank " + std::to_string(comm().size() - 1) + "] " + f.path() + ":991: ";
    EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
  }
}

TEST(MpiLoad, NamedIdsAreGlobalFirstAppearance) {
  std::string text;
  std::vector<std::string> order;
  for (int i = 0; i < 600; ++i) {
    const std::string name = "n" + std::to_string((i * 7919) % 97);
    if (std::find(order.begin(), order.end(), name) == order.end()) {
      order.push_back(name);
    }
    text += name + " " + std::to_string(i % 5) + " 1.0\n";
  }
  SharedFile f("named.txt", text);
  rotor::CsvOptions o;
  o.delimiter = ' ';
  o.named_fields = {0};
  rotor::CsvNames names;
  auto d = rotor::load_csv<Rating>(f.path(), o, &names);
  ASSERT_EQ(names.names.size(), 1u);
  EXPECT_EQ(names.names[0], order);
  const auto all = gather(d);
  ASSERT_EQ(all.size(), 600u);
  for (int i = 0; i < 600; ++i) {
    EXPECT_EQ(names.names[0][static_cast<std::size_t>(all[static_cast<std::size_t>(i)].user)],
              "n" + std::to_string((i * 7919) % 97));
  }
}

TEST(MpiLoad, UciBowAndTruncation) {
  std::string body;
  std::vector<std::pair<int, int>> tokens;
  int nnz = 0;
  for (int doc = 1; doc <= 40; ++doc) {
    for (int word = 1 + doc % 3; word <= 30; word += 4) {
      const int count = 1 + (doc + word) % 3;
      body += std::to_string(doc) + " " + std::to_string(word) + " " + std::to_string(count) + "\n";
      for (int c = 0; c < count; ++c) {
        tokens.emplace_back(doc - 1, word - 1);
      }
      ++nnz;
    }
  }
  SharedFile f("docword.txt", "40\n30\n" + std::to_string(nnz) + "\n" + body);
  rotor::BagOfWordsInfo info;
  auto d = rotor::load_uci_bow<Token>(f.path(), &info);
  EXPECT_EQ(info.tokens, static_cast<std::int64_t>(tokens.size()));
  const auto all = gather(d);
  ASSERT_EQ(all.size(), tokens.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(std::make_pair(all[i].doc, all[i].word), tokens[i]) << i;
  }
  SharedFile t("trunc.txt", "40\n30\n" + std::to_string(nnz + 5) + "\n" + body);
  try {
    rotor::load_uci_bow<Token>(t.path());
    ADD_FAILURE() << "no error";
  } catch (const rotor::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("(truncated?)"), std::string::npos) << e.what();
    EXPECT_EQ(e.line(), 3 + nnz);
  }
}

TEST(MpiLoad, LibsvmFeaturesWholeExamplesDistributed) {
  std::string text;
  for (int i = 0; i < 500; ++i) {
    text += (i % 3 ? "+1" : "-1");
    for (int j = 1 + i % 5; j <= 20; j += 3 + i % 4) {
      text += " " + std::to_string(j) + ":" + std::to_string(i % 7);
    }
    text += "\n";
  }
  SharedFile f("svm.txt", text);
  auto data = rotor::load_libsvm(f.path());
  EXPECT_EQ(data.examples.size(), 500);
  EXPECT_EQ(data.features.rows(), 500);
  EXPECT_EQ(data.num_features, 20);
  const auto all = gather(data.examples);
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(all[i].row, static_cast<std::int64_t>(i));
    ASSERT_EQ(all[i].label, i % 3 ? 1.f : -1.f);
  }
  for (const auto& e : data.examples) {
    auto row = data.features.row(e.row);
    ASSERT_GT(row.size(), 0u);
    EXPECT_EQ(row.first->index, static_cast<std::int32_t>(e.row % 5));
  }
}

TEST(MpiLoad, BinaryCacheRoundTripDistributed) {
  const auto expected = expected_ratings(777);
  SharedFile f("r2.csv", csv_text(expected));
  SharedFile bin("r2.bin", "");
  auto d = rotor::load_csv<Rating>(f.path());
  rotor::save_binary(d, bin.path());
  auto back = rotor::load_binary<Rating>(bin.path());
  EXPECT_EQ(gather(back), expected);
}

TEST(MpiRankIndependence, SortShuffleRemapHistogramPartition) {
  const auto expected = expected_ratings(1500);
  SharedFile f("r3.csv", csv_text(expected));
  rotor::Dataset<Rating> serial(expected); // replicated: the operations run locally
  auto d = rotor::load_csv<Rating>(f.path());
  EXPECT_EQ(d.histogram(&Rating::user), serial.histogram(&Rating::user));
  const auto bd = rotor::histogram_partition(d, &Rating::item, 4);
  EXPECT_EQ(bd.starts, rotor::histogram_partition(serial, &Rating::item, 4).starts);
  rotor::BlockGrid grid{{rotor::histogram_partition(d, &Rating::user, 3), bd}};
  EXPECT_EQ(rotor::bucket_by_block(d, grid, &Rating::user, &Rating::item).global_counts,
            rotor::bucket_by_block(serial, grid, &Rating::user, &Rating::item).global_counts);

  auto shuffled = d;
  auto serial_shuffled = serial;
  shuffled.shuffle(99);
  serial_shuffled.shuffle(99);
  EXPECT_EQ(gather(shuffled), std::vector<Rating>(serial_shuffled.begin(), serial_shuffled.end()));
  EXPECT_EQ(shuffled.size(), 1500);

  shuffled.sort_by_keys();
  serial_shuffled.sort_by_keys();
  EXPECT_EQ(gather(shuffled), std::vector<Rating>(serial_shuffled.begin(), serial_shuffled.end()));

  auto perm = d.remap(&Rating::user, 5);
  EXPECT_EQ(perm, serial.remap(&Rating::user, 5));
  EXPECT_EQ(gather(d), std::vector<Rating>(serial.begin(), serial.end()));
}

TEST(MpiRankIndependence, IdsAreFileOrderAndFollowRecords) {
  const auto expected = expected_ratings(999);
  SharedFile f("r4.csv", csv_text(expected));
  rotor::detail::RecordOrderHooks keep;
  keep.keep_ids = [] { return true; };
  rotor::detail::set_record_order_hooks(keep);
  auto d = rotor::load_csv<Rating>(f.path());
  rotor::Dataset<Rating> serial(expected);
  rotor::detail::set_record_order_hooks({});
  auto check_ids = [&](const rotor::Dataset<Rating>& ds) {
    const std::vector<char> bytes =
        rotor::detail::gather_all(ds.ids().data(), ds.ids().size() * sizeof(std::uint64_t));
    std::vector<std::uint64_t> ids(bytes.size() / sizeof(std::uint64_t));
    std::memcpy(ids.data(), bytes.data(), bytes.size());
    const auto records = gather(ds);
    EXPECT_EQ(ids.size(), records.size());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < ids.size() && i < records.size(); ++i) {
      wrong += ids[i] >= expected.size() || !(records[i] == expected[ids[i]]);
    }
    EXPECT_EQ(wrong, 0u);
    return ids;
  };
  check_ids(d);
  d.shuffle(12);
  serial.shuffle(12);
  const auto ids = check_ids(d);
  EXPECT_EQ(ids, serial.ids());
  d.sort_by_keys();
  serial.sort_by_keys();
  EXPECT_EQ(check_ids(d), serial.ids());
}

TEST(MpiArray, FillIsRankIndependentAndHdf5IsCollective) {
  rotor::DistArray<float, 2> a({50, 8});
  a.fill_normal(0.f, 1.f, 17);
  std::vector<float> first(a.data(), a.data() + a.size());
  comm().broadcast(first.data(), first.size() * sizeof(float), 0);
  for (std::int64_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a.data()[i], first[static_cast<std::size_t>(i)]);
  }
  SharedFile f("a.h5", "");
  if (comm().rank() == 0) {
    std::filesystem::remove(f.path());
  }
  comm().barrier();
  a.save_hdf5(f.path(), "A");
  rotor::DistArray<float, 2> b({50, 8});
  b.load_hdf5(f.path(), "A");
  for (std::int64_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a.data()[i], b.data()[i]);
  }
  EXPECT_THROW(b.load_hdf5(f.path(), "missing"), rotor::InputError); // on every rank, no hang
}

} // namespace
