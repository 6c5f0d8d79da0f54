#include "TextShard.h"

#include "rotor/distarray/detail/Collective.h"

#include <cstring>
#include <vector>

namespace rotor::detail {

TextShard::TextShard(const char* begin, const char* end, int rank, int ranks) : end_(end) {
  const auto n = static_cast<std::uint64_t>(end - begin);
  const char* lo = begin + n * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(ranks);
  const char* hi =
      begin + n * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(ranks);
  // A line belongs to the rank whose range holds its first byte.
  if (lo > begin && lo[-1] != '\n') {
    const void* nl = std::memchr(lo, '\n', static_cast<std::size_t>(end - lo));
    lo = nl ? static_cast<const char*>(nl) + 1 : end;
  }
  pos_ = lo;
  stop_ = hi < lo ? lo : hi;
}

std::string quote(std::string_view s) {
  constexpr std::size_t max = 40;
  std::string q = "'" + std::string(s.substr(0, max));
  if (s.size() > max) {
    q += "...";
  }
  for (char& c : q) {
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) >= 127) {
      c = '?';
    }
  }
  return q + "'";
}

namespace {
struct Summary {
  std::int64_t lines;
  std::int64_t records;
  std::int64_t items;
  std::int64_t failed;
  std::int64_t error_line;
  std::int64_t message_bytes;
};
} // namespace

ShardPlace agree_on_outcome(const std::string& path, std::int64_t lines_before, std::int64_t lines,
                            std::int64_t records, std::int64_t items, const LocalError* error) {
  Collective& c = collective();
  std::vector<char> mine(sizeof(Summary));
  Summary s{lines,
            records,
            items,
            error ? 1 : 0,
            error ? error->line : 0,
            error ? static_cast<std::int64_t>(error->message.size()) : 0};
  std::memcpy(mine.data(), &s, sizeof s);
  if (error) {
    mine.insert(mine.end(), error->message.begin(), error->message.end());
  }
  std::vector<std::size_t> offsets;
  const std::vector<char> all = c.allgatherv(mine.data(), mine.size(), offsets);
  ShardPlace place;
  place.total_lines = lines_before;
  std::int64_t line_base = lines_before;
  for (int r = 0; r < c.size(); ++r) {
    Summary o{};
    std::memcpy(&o, all.data() + offsets[static_cast<std::size_t>(r)], sizeof o);
    if (o.failed) {
      std::string message(all.data() + offsets[static_cast<std::size_t>(r)] + sizeof o,
                          static_cast<std::size_t>(o.message_bytes));
      throw InputError(r, path, o.error_line > 0 ? line_base + o.error_line : 0, message);
    }
    if (r == c.rank()) {
      place.first_line = line_base;
      place.first_record = place.total_records;
    }
    line_base += o.lines;
    place.total_records += o.records;
    place.total_items += o.items;
  }
  place.total_lines = line_base;
  return place;
}

} // namespace rotor::detail
