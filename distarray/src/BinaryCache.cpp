// save_binary / load_binary: a header and the raw records, for fast reloading.
#include "TextShard.h"
#include "rotor/distarray/Loaders.h"
#include "rotor/distarray/detail/Collective.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace rotor::detail {
namespace {

constexpr char k_magic[8] = {'R', 'O', 'T', 'O', 'R', 'D', 'S', '1'};
constexpr std::uint32_t k_version = 1;

struct BinaryHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t record_size;
  std::uint64_t layout;
  std::uint64_t count;
  std::uint64_t reserved;
};
static_assert(sizeof(BinaryHeader) == 40, "binary cache header is 40 bytes");

std::string errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

/// Writes all of [data, data + bytes) at `offset`; "" or what went wrong.
std::string write_at(int fd, const char* data, std::size_t bytes, std::uint64_t offset) {
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd, data, bytes, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno_text("write failed");
    }
    data += n;
    bytes -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return "";
}

/// Reads all of `bytes` at `offset`; "" or what went wrong.
std::string read_at(int fd, char* data, std::size_t bytes, std::uint64_t offset) {
  while (bytes > 0) {
    const ssize_t n = ::pread(fd, data, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return n < 0 ? errno_text("read failed") : "truncated while reading";
    }
    data += n;
    bytes -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return "";
}

} // namespace

std::uint64_t layout_tag(const RecordLayout& layout) {
  std::uint64_t h = 0xcbf29ce484222325ULL; // FNV-1a
  auto add = [&](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
    }
  };
  add(layout.record_size);
  for (const FieldDesc& f : layout.fields) {
    add(static_cast<std::uint64_t>(f.kind));
    add(f.offset);
  }
  return h;
}

void save_binary_raw(const std::string& path, const void* records, std::size_t count,
                     const RecordLayout& layout, bool distributed) {
  Collective& c = collective();
  std::uint64_t first = 0;
  std::uint64_t total = count;
  if (distributed) {
    std::vector<std::size_t> offsets;
    const std::uint64_t mine = count;
    const std::vector<char> all = c.allgatherv(&mine, sizeof mine, offsets);
    total = 0;
    for (int r = 0; r < c.size(); ++r) {
      std::uint64_t n = 0;
      std::memcpy(&n, all.data() + offsets[static_cast<std::size_t>(r)], sizeof n);
      if (r == c.rank()) {
        first = total;
      }
      total += n;
    }
  }
  const std::string tmp = path + ".rotor-tmp";
  const std::uint64_t bytes = sizeof(BinaryHeader) + total * layout.record_size;
  std::string error;
  if (c.rank() == 0) {
    const int fd = ::open(tmp.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) {
      error = errno_text(("cannot create " + tmp).c_str());
    } else {
      BinaryHeader h{};
      std::memcpy(h.magic, k_magic, sizeof k_magic);
      h.version = k_version;
      h.record_size = static_cast<std::uint32_t>(layout.record_size);
      h.layout = layout_tag(layout);
      h.count = total;
      error = write_at(fd, reinterpret_cast<const char*>(&h), sizeof h, 0);
      if (error.empty() && ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
        error = errno_text("cannot size the file");
      }
      ::close(fd);
    }
  }
  error = broadcast_from_root(std::move(error));
  if (!error.empty()) {
    throw InputError(0, path, 0, error);
  }
  std::string local;
  if (count > 0 && (distributed || c.rank() == 0)) {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      local = errno_text(("cannot open " + tmp).c_str());
    } else {
      local = write_at(fd, static_cast<const char*>(records), count * layout.record_size,
                       sizeof(BinaryHeader) + first * layout.record_size);
      if (local.empty() && ::fsync(fd) != 0) {
        local = errno_text("fsync failed");
      }
      ::close(fd);
    }
  }
  std::int64_t failed = local.empty() ? 0 : 1;
  c.allreduce_max(&failed, 1);
  if (c.rank() == 0) {
    if (failed) {
      ::unlink(tmp.c_str());
    } else if (::rename(tmp.c_str(), path.c_str()) != 0) {
      error = errno_text("cannot rename the temporary file");
      ::unlink(tmp.c_str());
    }
  }
  error = broadcast_from_root(std::move(error));
  if (!local.empty()) {
    throw InputError(path, 0, local);
  }
  if (failed) {
    throw InputError(path, 0, "another rank failed to write its records");
  }
  if (!error.empty()) {
    throw InputError(0, path, 0, error);
  }
}

std::uint64_t load_binary_raw(const std::string& path, const RecordLayout& layout,
                              RecordSink sink) {
  Collective& c = collective();
  std::optional<LocalError> error;
  std::uint64_t first = 0;
  std::uint64_t local = 0;
  char* out = nullptr;
  [&] {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error = LocalError{0, errno_text("cannot open")};
      return;
    }
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      error = LocalError{0, "is not a regular file"};
      return;
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size == 0) {
      error = LocalError{0, "empty file"};
      return;
    }
    BinaryHeader h{};
    if (size < sizeof h) {
      error =
          LocalError{0, "truncated: " + std::to_string(size) + " bytes, shorter than the header"};
      return;
    }
    std::string why = read_at(fd, reinterpret_cast<char*>(&h), sizeof h, 0);
    if (!why.empty()) {
      error = LocalError{0, why};
      return;
    }
    if (std::memcmp(h.magic, k_magic, sizeof k_magic) != 0) {
      error = LocalError{0, "not a Rotor binary cache (bad magic)"};
      return;
    }
    if (h.version != k_version) {
      error = LocalError{0, "binary cache version " + std::to_string(h.version) + ", expected " +
                                std::to_string(k_version)};
      return;
    }
    if (h.record_size != layout.record_size || h.layout != layout_tag(layout)) {
      error = LocalError{0, "records of another type: " + std::to_string(h.record_size) +
                                "-byte records with another field layout, expected " +
                                std::to_string(layout.record_size) + "-byte records"};
      return;
    }
    const std::uint64_t expected = sizeof h + h.count * h.record_size;
    if (h.count > (UINT64_MAX - sizeof h) / (h.record_size ? h.record_size : 1) ||
        size != expected) {
      error = LocalError{
          0, (size < expected ? "truncated: the header says " : "oversized: the header says ") +
                 std::to_string(h.count) + " records (" + std::to_string(expected) +
                 " bytes), the file has " + std::to_string(size) + " bytes"};
      return;
    }
    const auto r = static_cast<std::uint64_t>(c.rank());
    const auto p = static_cast<std::uint64_t>(c.size());
    first = h.count * r / p;
    local = h.count * (r + 1) / p - first;
    if (static_cast<double>(local) * h.record_size > static_cast<double>(loader_memory_limit())) {
      error = LocalError{0, "this rank's " + std::to_string(local) + " records need more than " +
                                human_bytes(static_cast<double>(loader_memory_limit()))};
      return;
    }
    out = sink.resize(sink.owner, local);
    why = read_at(fd, out, local * h.record_size, sizeof h + first * h.record_size);
    if (!why.empty()) {
      error = LocalError{0, why};
    }
  }();
  agree_on_outcome(path, 0, 0, static_cast<std::int64_t>(local), 0, error ? &*error : nullptr);
  return first;
}

} // namespace rotor::detail
