#pragma once
/// \file
/// Loading datasets from files. Every loader validates its input and throws rotor::InputError
/// with the message `[rank R] FILE:LINE: what was wrong` (malformed line, wrong column count,
/// non-numeric value, id out of range or negative, NaN/inf, empty or truncated file); nothing is
/// silently dropped. With MPI, every rank calls the loader (collectively) and reads a byte range
/// of the same file; the result is a distributed Dataset (see Dataset.h).
///
/// \code
///   struct Rating { int32_t user; int32_t item; float value; };
///   auto ratings = rotor::load_csv<Rating>("ratings.csv");             // columns 0,1,2 -> fields
///   rotor::CsvOptions tsv; tsv.delimiter = '\t'; tsv.header = true;
///   auto more = rotor::load_csv<Rating>("ratings.tsv", tsv);
///
///   struct Token { int32_t doc; int32_t word; int32_t topic; };
///   rotor::BagOfWordsInfo info;
///   auto tokens = rotor::load_uci_bow<Token>("docword.kos.txt", &info); // one record per token
///
///   rotor::LibsvmData train = rotor::load_libsvm("a9a");               // examples + features
/// \endcode

#include "rotor/distarray/Dataset.h"
#include "rotor/distarray/InputError.h"
#include "rotor/distarray/detail/LoaderCore.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace rotor {

/// Delimited text: CSV, TSV or space-separated.
struct CsvOptions {
  /// ',' CSV, '\t' TSV, ';' or any other single character; ' ' means any run of spaces/tabs.
  char delimiter = ',';
  /// present: the first line is a header; none: no header. Default, detect: the first line is a
  /// header when none of its numeric columns holds a number ("user,item,rating"); a first line
  /// with only some bad values is data, and reported as an error.
  enum class Header { none, present, detect } header = Header::detect;
  /// Column (0-based) of each record field in declaration order; empty: field i <- column i,
  /// and every line must have exactly as many columns as Record has fields. With explicit
  /// columns, columns beyond those used are ignored; a line with fewer columns is an error.
  std::vector<int> columns;
  /// Integer fields (by index in declaration order) whose column holds names (`alice`, `ham`),
  /// not numbers: each distinct name gets an id 0, 1, ... in order of first appearance in the
  /// file (the same on any number of ranks); the names come back in load_csv's `names`.
  std::vector<int> named_fields;
  /// Integer fields must be >= 0 (they are ids) unless this is false.
  bool ids_non_negative = true;
  /// NaN / inf in a floating field is an error unless this is true.
  bool allow_nonfinite = false;
};

/// The names of named fields (CsvOptions::named_fields): names[k][id] is the name with that id
/// in the k-th named field.
struct CsvNames {
  std::vector<std::vector<std::string>> names;
};

/// Loads records from delimited text; field i of Record gets column columns[i] (or i).
template <class Record>
Dataset<Record> load_csv(const std::string& path, const CsvOptions& options = {},
                         CsvNames* names = nullptr) {
  std::vector<Record> records;
  const detail::RecordLayout layout{detail::describe_fields<Record>(), sizeof(Record)};
  std::vector<detail::KeyOrigin> origins;
  detail::LoadedKeyCounts counts;
  const std::uint64_t first = detail::load_delimited_raw(
      path, options, layout, detail::sink_for(records), names, &origins, &counts);
  return Dataset<Record>::distributed(std::move(records), first, std::move(origins),
                                      std::move(counts));
}

/// What a UCI bag-of-words header says.
struct BagOfWordsInfo {
  std::int64_t documents = 0;
  std::int64_t words = 0;    ///< vocabulary size W (word ids are 0 .. W-1 after loading)
  std::int64_t nonzeros = 0; ///< `docID wordID count` lines
  std::int64_t tokens = 0;   ///< sum of counts = records loaded (over all ranks)
};

/// Loads a UCI bag-of-words file (`docword.*.txt`; `.xz` not supported: decompress first) as one
/// record per token occurrence: the first two integer fields of Record get (doc, word), 0-based;
/// every other field is zero. `info`, if given, receives the header.
template <class Record>
Dataset<Record> load_uci_bow(const std::string& path, BagOfWordsInfo* info = nullptr) {
  std::vector<Record> records;
  const detail::RecordLayout layout{detail::describe_fields<Record>(), sizeof(Record)};
  const std::uint64_t first =
      detail::load_uci_bow_raw(path, layout, detail::sink_for(records), info);
  return Dataset<Record>::distributed(std::move(records), first);
}

/// One LIBSVM example: its row (global id, 0-based) and label. Its features are
/// `LibsvmData::features.row(example.row)`.
struct LibsvmExample {
  std::int64_t row;
  float label;
};

/// Compressed sparse rows, read-only, whole on every rank.
class SparseRows {
public:
  struct Entry {
    std::int32_t index; ///< 0-based feature id
    float value;
  };
  struct Row {
    const Entry* first;
    const Entry* last;
    const Entry* begin() const { return first; }
    const Entry* end() const { return last; }
    std::size_t size() const { return static_cast<std::size_t>(last - first); }
  };
  Row row(std::int64_t r) const {
    return {entries_.data() + offsets_[r], entries_.data() + offsets_[r + 1]};
  }
  std::int64_t rows() const { return static_cast<std::int64_t>(offsets_.size()) - 1; }
  std::int64_t nonzeros() const { return static_cast<std::int64_t>(entries_.size()); }

  std::vector<std::int64_t> offsets_{0}; ///< rows() + 1 entries
  std::vector<Entry> entries_;
};

struct LibsvmData {
  Dataset<LibsvmExample> examples; ///< distributed like any loaded dataset
  SparseRows features;             ///< whole on every rank
  std::int64_t num_features = 0;   ///< max feature id (1-based in the file) over all rows
};

struct LibsvmOptions {
  /// Declared number of features (e.g. 123 for a9a.t); 0: from the data. A feature id above a
  /// declared count is an error.
  std::int64_t num_features = 0;
  /// Labels must be +1/-1 (or 1/0, mapped to +1/-1) unless false.
  bool binary_labels = true;
};

LibsvmData load_libsvm(const std::string& path, const LibsvmOptions& options = {});

/// Binary cache: a 40-byte header (magic `ROTORDS1`, version, record size, a tag of the record's
/// field layout, record count) and the raw records in global order. Collective; written to a
/// temporary file, synced and renamed. A distributed dataset is written by every rank (its
/// share, at its offset); a replicated one by rank 0.
template <class Record> void save_binary(const Dataset<Record>& data, const std::string& path) {
  const detail::RecordLayout layout{detail::describe_fields<Record>(), sizeof(Record)};
  const Record* first = data.local_size() ? &data[0] : nullptr;
  detail::save_binary_raw(path, first, data.local_size(), layout,
                          data.distribution() == Distribution::distributed);
}
/// Reads a binary cache written by save_binary<Record>; each rank reads an even share. Rejects a
/// file of another record layout, a truncated or oversized file.
template <class Record> Dataset<Record> load_binary(const std::string& path) {
  std::vector<Record> records;
  const detail::RecordLayout layout{detail::describe_fields<Record>(), sizeof(Record)};
  const std::uint64_t first = detail::load_binary_raw(path, layout, detail::sink_for(records));
  return Dataset<Record>::distributed(std::move(records), first);
}

} // namespace rotor
