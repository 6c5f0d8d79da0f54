// load_libsvm: `label idx:val ...` lines; examples distributed, features whole on every rank.
#include "FieldStore.h"
#include "MappedFile.h"
#include "TextShard.h"
#include "rotor/distarray/Loaders.h"
#include "rotor/distarray/detail/Collective.h"

#include <algorithm>
#include <optional>

namespace rotor {
namespace {

/// Parses one line into `labels`, `lengths`, `entries`; returns "" or what is wrong.
std::string parse_example(std::string_view line, const LibsvmOptions& o, std::vector<float>& labels,
                          std::vector<std::int64_t>& lengths,
                          std::vector<SparseRows::Entry>& entries, std::int64_t& max_feature) {
  using detail::quote;
  std::string_view word;
  detail::next_word(line, word);
  double label = 0;
  if (!detail::parse_double(word, label) || !std::isfinite(label)) {
    return "label is not a finite number: " + quote(word);
  }
  if (o.binary_labels) {
    if (label == 1.0) {
      label = 1.0;
    } else if (label == -1.0 || label == 0.0) {
      label = -1.0;
    } else {
      return "label " + quote(word) +
             " is not binary (+1/-1 or 1/0); set LibsvmOptions::binary_labels = false";
    }
  }
  std::int64_t previous = 0;
  std::int64_t count = 0;
  while (detail::next_word(line, word)) {
    if (word.front() == '#') {
      break; // comment to the end of the line
    }
    const std::size_t colon = word.find(':');
    if (colon == std::string_view::npos) {
      return "expected index:value, found " + quote(word);
    }
    std::int64_t index = 0;
    double value = 0;
    const std::string_view index_text = word.substr(0, colon);
    const std::string_view value_text = word.substr(colon + 1);
    if (!detail::parse_int(index_text, index)) {
      return "feature index is not an integer: " + quote(word);
    }
    if (index < 1 || index > INT32_MAX) {
      return "feature index " + std::to_string(index) + " out of range (indices start at 1)";
    }
    if (o.num_features > 0 && index > o.num_features) {
      return "feature index " + std::to_string(index) + " above the declared " +
             std::to_string(o.num_features) + " features";
    }
    if (index <= previous) {
      return "feature indices must ascend: " + std::to_string(index) + " after " +
             std::to_string(previous);
    }
    if (!detail::parse_double(value_text, value)) {
      return "feature value is not a number: " + quote(word);
    }
    if (!std::isfinite(value) ||
        std::abs(value) > static_cast<double>(std::numeric_limits<float>::max())) {
      return "feature value is not finite (or out of float range): " + quote(word);
    }
    previous = index;
    max_feature = std::max(max_feature, index);
    entries.push_back({static_cast<std::int32_t>(index - 1), static_cast<float>(value)});
    ++count;
  }
  labels.push_back(static_cast<float>(label));
  lengths.push_back(count);
  return "";
}

template <class T> std::vector<T> gather_vector(std::vector<T>& local) {
  if (detail::collective().size() == 1) {
    return std::move(local); // nothing to gather: no copy
  }
  std::vector<char> bytes = detail::gather_all(local.data(), local.size() * sizeof(T));
  std::vector<T> all(bytes.size() / sizeof(T));
  if (!bytes.empty()) {
    std::memcpy(static_cast<void*>(all.data()), bytes.data(), bytes.size());
  }
  return all;
}

} // namespace

LibsvmData load_libsvm(const std::string& path, const LibsvmOptions& options) {
  detail::Collective& c = detail::collective();
  detail::MappedFile file(path);
  std::optional<detail::LocalError> error;
  std::vector<float> labels;
  std::vector<std::int64_t> lengths;
  std::vector<SparseRows::Entry> entries;
  std::int64_t max_feature = 0;
  std::int64_t shard_lines = 0;
  [&] {
    if (const std::string why = file.unusable_reason(); !why.empty()) {
      error = detail::LocalError{0, why};
      return;
    }
    detail::TextShard shard(file.data(), file.data() + file.size(), c.rank(), c.size());
    // Room for entries estimated from the ':' density of the first 64 KB.
    {
      const std::size_t n = std::min<std::size_t>(shard.bytes(), 1 << 16);
      const char* p = shard.position();
      std::size_t colons = 0;
      for (std::size_t i = 0; i < n; ++i) {
        colons += p[i] == ':';
      }
      entries.reserve(n == 0 ? 0 : shard.bytes() / n * colons * 9 / 8 + 16);
    }
    std::string_view line;
    while (shard.next(line)) {
      if (detail::trim(line).empty() || detail::trim(line).front() == '#') {
        continue;
      }
      std::string why = parse_example(line, options, labels, lengths, entries, max_feature);
      if (!why.empty()) {
        error = detail::LocalError{shard.line(), why};
        return;
      }
    }
    shard_lines = shard.line();
  }();
  const detail::ShardPlace place = detail::agree_on_outcome(
      path, 0, shard_lines, static_cast<std::int64_t>(labels.size()),
      static_cast<std::int64_t>(entries.size()), error ? &*error : nullptr);
  if (place.total_records == 0) {
    throw InputError(0, path, 0, "no examples");
  }
  LibsvmData data;
  std::vector<LibsvmExample> examples(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    examples[i] = {place.first_record + static_cast<std::int64_t>(i), labels[i]};
  }
  data.examples = Dataset<LibsvmExample>::distributed(
      std::move(examples), static_cast<std::uint64_t>(place.first_record));
  const std::vector<std::int64_t> all_lengths = gather_vector(lengths);
  data.features.entries_ = gather_vector(entries);
  data.features.offsets_.assign(all_lengths.size() + 1, 0);
  for (std::size_t i = 0; i < all_lengths.size(); ++i) {
    data.features.offsets_[i + 1] = data.features.offsets_[i] + all_lengths[i];
  }
  data.num_features =
      options.num_features > 0 ? options.num_features : detail::global_max(max_feature);
  return data;
}

} // namespace rotor
