#include "CheckpointSettings.h"
#include "LoopWhere.h"
#include "rotor/distarray/detail/Hdf5MemoryType.h"

#include "CheckpointHooks.h"
#include "SessionState.h"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <numeric>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace rotor::detail {
namespace {

constexpr const char* kFileName = "rotor-checkpoint.h5";
constexpr const char* kFormat = "rotor-checkpoint-1";

/// An array bound to some loop so far, in order of first binding, with its values at the end of
/// the last execution that bound it.
struct ArrayEntry {
  const void* identity = nullptr;
  std::string name;
  ElementType element_type = ElementType::f32;
  std::size_t elem_bytes = 0;
  std::vector<std::int64_t> shape;
  std::vector<char> snapshot;
  std::vector<char> pending; ///< restored values not yet put back (resume)
  bool has_pending = false;
  bool previewed = false;      ///< resume: the checkpoint's values were copied in early
  char* data = nullptr;        ///< the elements, as of the last binding
  std::int64_t last_bound = 0; ///< the execution (1-based) that bound it last
};

/// A Dataset whose records a loop writes: its records (any order) and their global ids.
struct DatasetEntry {
  const void* identity = nullptr;
  std::size_t record_bytes = 0;
  std::vector<char> records;
  std::vector<std::uint64_t> ids;
  std::vector<char> pending_records; ///< sorted by pending_ids
  std::vector<std::uint64_t> pending_ids;
  bool has_pending = false;
};

struct CheckpointState {
  std::int64_t executions = 0;   ///< loop executions so far (run or skipped)
  std::int64_t resume_from = -1; ///< executions the resumed checkpoint holds; -1: not known yet
  std::vector<ArrayEntry> arrays;
  std::vector<DatasetEntry> datasets;
  std::vector<std::pair<std::string, std::int64_t>> last_of_site; ///< loop site -> execution
  std::vector<char> reduction_log;                 ///< every execution's reduction bytes
  std::vector<std::uint64_t> reduction_offsets{0}; ///< execution i: [offsets[i], offsets[i+1])
};

CheckpointState& state() {
  static CheckpointState s;
  return s;
}

const SessionSettings& settings() {
  return session_state().settings;
}

[[noreturn]] void fail(const std::string& message) {
  throw std::runtime_error("[rank " + std::to_string(comm().rank()) +
                           "] rotor: checkpoint: " + message);
}

hid_t h5_type(ElementType element_type) {
  return static_cast<hid_t>(hdf5_memory_type(element_type));
}

std::string array_path(std::size_t i, const ArrayEntry& a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "/arrays/a%03zu_", i);
  return buf + (a.name.empty() ? std::string("array") : a.name);
}
std::string dataset_path(std::size_t i) {
  return "/datasets/d" + std::to_string(i);
}

// ---- registry ------------------------------------------------------------------------------

ArrayEntry& entry_for(const ArrayBinding& b) {
  auto& arrays = state().arrays;
  for (auto& e : arrays) {
    if (e.identity == b.identity && e.shape == b.shape && e.element_type == b.element_type) {
      return e;
    }
  }
  ArrayEntry e;
  e.identity = b.identity;
  e.name = b.name;
  e.element_type = b.element_type;
  e.elem_bytes = b.elem_bytes;
  e.shape = b.shape;
  arrays.push_back(std::move(e));
  return arrays.back();
}

std::size_t byte_size(const ArrayBinding& b) {
  std::size_t n = b.elem_bytes;
  for (auto x : b.shape) {
    n *= static_cast<std::size_t>(x);
  }
  return n;
}

DatasetEntry* dataset_entry_for(const codegen::LoopSpec& spec, SpaceAccess& space) {
  if (space.is_index_space() || !spec.writes_records) {
    return nullptr;
  }
  for (auto& d : state().datasets) {
    if (d.identity == space.identity()) {
      return &d;
    }
  }
  DatasetEntry d;
  d.identity = space.identity();
  d.record_bytes = space.record_bytes();
  state().datasets.push_back(std::move(d));
  return &state().datasets.back();
}

void put_back_arrays(std::vector<ArrayBinding>& arrays) {
  for (auto& b : arrays) {
    ArrayEntry& e = entry_for(b);
    if (e.has_pending) {
      std::memcpy(b.data, e.pending.data(), e.pending.size());
      e.pending.clear();
      e.pending.shrink_to_fit();
      e.has_pending = false;
    }
  }
}

void put_back_records(DatasetEntry& d, SpaceAccess& space) {
  if (!d.has_pending) {
    return;
  }
  space.ensure_ids();
  const auto& ids = space.ids();
  char* data = space.record_data();
  for (std::size_t i = 0; i < space.local_count(); ++i) {
    auto it = std::lower_bound(d.pending_ids.begin(), d.pending_ids.end(), ids[i]);
    if (it == d.pending_ids.end() || *it != ids[i]) {
      fail("record " + std::to_string(ids[i]) +
           " of a dataset is not in the checkpoint (was it "
           "loaded differently?)");
    }
    const auto k = static_cast<std::size_t>(it - d.pending_ids.begin());
    std::memcpy(data + i * d.record_bytes, d.pending_records.data() + k * d.record_bytes,
                d.record_bytes);
  }
  d.pending_ids.clear();
  d.pending_records.clear();
  d.has_pending = false;
  if (std::uint64_t* version = space.version()) {
    ++*version; // the records changed: layouts check their keys, the loader's counts no longer hold
  }
}

// ---- writing -------------------------------------------------------------------------------

void write_bytes_dataset(hid_t file, const std::string& path, hid_t type, int rank,
                         const hsize_t* dims, const void* data) {
  hid_t space = H5Screate_simple(rank, dims, nullptr);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t dset = H5Dcreate2(file, path.c_str(), type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  bool ok = dset >= 0 && H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
  if (dset >= 0) {
    H5Dclose(dset);
  }
  H5Pclose(lcpl);
  H5Sclose(space);
  if (!ok) {
    fail("cannot write " + path);
  }
}

void write_attribute(hid_t file, const char* name, std::int64_t value) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(file, name, H5T_NATIVE_INT64, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, H5T_NATIVE_INT64, &value);
  H5Aclose(attr);
  H5Sclose(space);
}

void write_string_attribute(hid_t file, const char* name, const std::string& value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, std::max<std::size_t>(1, value.size()));
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, type, value.c_str());
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
}

void fsync_path(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

/// Gathers every rank's snapshot of `d`; on rank 0 returns the records sorted by id (duplicates
/// of a replicated dataset removed).
void gather_records(const DatasetEntry& d, std::vector<std::uint64_t>& ids,
                    std::vector<char>& records) {
  Comm& c = comm();
  std::vector<std::size_t> offs;
  std::vector<char> all_ids =
      c.allgatherv(d.ids.data(), d.ids.size() * sizeof(std::uint64_t), offs);
  std::vector<char> all_recs = c.allgatherv(d.records.data(), d.records.size(), offs);
  const std::size_t n = all_ids.size() / sizeof(std::uint64_t);
  std::vector<std::uint64_t> raw(n);
  std::memcpy(raw.data(), all_ids.data(), all_ids.size());
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return raw[a] < raw[b]; });
  ids.clear();
  records.clear();
  for (std::size_t k : order) {
    if (!ids.empty() && ids.back() == raw[k]) {
      continue;
    }
    ids.push_back(raw[k]);
    records.insert(records.end(),
                   all_recs.begin() + static_cast<std::ptrdiff_t>(k * d.record_bytes),
                   all_recs.begin() + static_cast<std::ptrdiff_t>((k + 1) * d.record_bytes));
  }
}

void write_checkpoint(const codegen::LoopSpec& spec) {
  CheckpointState& st = state();
  Comm& c = comm();
  std::vector<std::vector<std::uint64_t>> ids(st.datasets.size());
  std::vector<std::vector<char>> records(st.datasets.size());
  for (std::size_t i = 0; i < st.datasets.size(); ++i) {
    gather_records(st.datasets[i], ids[i], records[i]); // collective: every rank
  }
  const std::string dir = settings().checkpoint_dir;
  const std::string final_path = dir + "/" + kFileName;
  const std::string tmp_path = final_path + ".tmp";
  std::int64_t status = 0;
  std::string error;
  if (c.rank() == 0) {
    try {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) { // one line, before HDF5 prints its error stack for the file
        fail("cannot create directory " + dir + ": " + ec.message());
      }
      hid_t file = H5Fcreate(tmp_path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
      if (file < 0) {
        fail("cannot create " + tmp_path + ": " + std::strerror(errno));
      }
      write_string_attribute(file, "format", kFormat);
      write_attribute(file, "executions", st.executions);
      write_attribute(file, "ranks", c.size());
      write_string_attribute(file, "loop", loop_where(spec));
      for (std::size_t i = 0; i < st.arrays.size(); ++i) {
        const ArrayEntry& a = st.arrays[i];
        std::vector<hsize_t> dims(a.shape.begin(), a.shape.end());
        write_bytes_dataset(file, array_path(i, a), h5_type(a.element_type),
                            static_cast<int>(dims.size()), dims.data(), a.snapshot.data());
      }
      {
        hsize_t n_bytes = st.reduction_log.size(), n_offsets = st.reduction_offsets.size();
        write_bytes_dataset(file, "/reductions/bytes", H5T_NATIVE_UINT8, 1, &n_bytes,
                            st.reduction_log.data());
        write_bytes_dataset(file, "/reductions/offsets", H5T_NATIVE_UINT64, 1, &n_offsets,
                            st.reduction_offsets.data());
      }
      for (std::size_t i = 0; i < st.datasets.size(); ++i) {
        hsize_t n = ids[i].size(), rb = st.datasets[i].record_bytes;
        hsize_t rec_dims[2] = {n, rb};
        write_bytes_dataset(file, dataset_path(i) + "/records", H5T_NATIVE_UINT8, 2, rec_dims,
                            records[i].data());
        write_bytes_dataset(file, dataset_path(i) + "/ids", H5T_NATIVE_UINT64, 1, &n,
                            ids[i].data());
      }
      if (H5Fclose(file) < 0) {
        fail("cannot close " + tmp_path);
      }
      fsync_path(tmp_path);
      if (std::rename(tmp_path.c_str(), final_path.c_str()) != 0) {
        fail("cannot rename " + tmp_path + " to " + final_path + ": " + std::strerror(errno));
      }
      fsync_path(dir);
    } catch (const std::exception& e) {
      status = 1;
      error = e.what();
    }
  }
  c.allreduce_max(&status, 1);
  if (status != 0) {
    throw std::runtime_error(
        c.rank() == 0 ? error : "rotor: checkpoint: rank 0 could not write " + final_path);
  }
}

// ---- reading -------------------------------------------------------------------------------

struct File {
  hid_t id = -1;
  ~File() {
    if (id >= 0) {
      H5Fclose(id);
    }
  }
};

std::int64_t read_int_attribute(hid_t file, const char* name, const std::string& path) {
  std::int64_t v = 0;
  hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
  if (attr < 0 || H5Aread(attr, H5T_NATIVE_INT64, &v) < 0) {
    fail(path + ": no attribute '" + std::string(name) + "' (not a Rotor checkpoint?)");
  }
  H5Aclose(attr);
  return v;
}

/// Reads dataset `path` (any shape) into `out`, checking its element count.
void read_dataset(hid_t file, const std::string& path, hid_t type, std::size_t elems,
                  std::size_t elem_bytes, std::vector<char>& out, const std::string& file_name) {
  hid_t dset = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  if (dset < 0) {
    fail(file_name + ": no dataset " + path + " (was the checkpoint written by this program?)");
  }
  hid_t space = H5Dget_space(dset);
  const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
  H5Sclose(space);
  if (elems != static_cast<std::size_t>(-1) && n != elems) {
    H5Dclose(dset);
    fail(file_name + ": " + path + " has " + std::to_string(n) + " elements, the program's has " +
         std::to_string(elems) + " (another program, or other arguments?)");
  }
  out.resize(n * elem_bytes);
  bool ok = H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0;
  H5Dclose(dset);
  if (!ok) {
    fail(file_name + ": cannot read " + path);
  }
}

std::string checkpoint_file() {
  return settings().checkpoint_dir + "/" + kFileName;
}

/// The number of executions the checkpoint holds (0 when there is none: a fresh start).
std::int64_t read_resume_point() {
  const std::string path = checkpoint_file();
  if (!std::filesystem::exists(path)) {
    if (comm().rank() == 0) {
      std::fprintf(stderr, "rotor: --rotor-resume: no checkpoint %s; starting from the beginning\n",
                   path.c_str());
    }
    return 0;
  }
  File f;
  f.id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f.id < 0) {
    fail("cannot open " + path);
  }
  std::int64_t k = read_int_attribute(f.id, "executions", path);
  CheckpointState& st = state();
  std::vector<char> offsets;
  read_dataset(f.id, "/reductions/offsets", H5T_NATIVE_UINT64, static_cast<std::size_t>(k) + 1,
               sizeof(std::uint64_t), offsets, path);
  st.reduction_offsets.resize(static_cast<std::size_t>(k) + 1);
  std::memcpy(st.reduction_offsets.data(), offsets.data(), offsets.size());
  read_dataset(f.id, "/reductions/bytes", H5T_NATIVE_UINT8, st.reduction_offsets.back(), 1,
               st.reduction_log, path);
  if (comm().rank() == 0) {
    std::fprintf(stderr, "rotor: resuming from %s after %lld loop executions\n", path.c_str(),
                 static_cast<long long>(k));
  }
  return k;
}

std::string read_string_attribute(hid_t file, const char* name, const std::string& path) {
  hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
  if (attr < 0) {
    fail(path + ": no attribute '" + std::string(name) + "' (not a Rotor checkpoint?)");
  }
  hid_t type = H5Aget_type(attr);
  std::string value(H5Tget_size(type), '\0');
  H5Aread(attr, type, value.data());
  H5Tclose(type);
  H5Aclose(attr);
  value.resize(std::strlen(value.c_str()));
  return value;
}

/// Loads the saved state; `loop` is this program's loop at the restore point, which must be the
/// one the checkpoint was written after (else: another program, or other arguments).
void load_checkpoint(const std::string& loop) {
  CheckpointState& st = state();
  const std::string path = checkpoint_file();
  File f;
  f.id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f.id < 0) {
    fail("cannot open " + path);
  }
  if (read_string_attribute(f.id, "format", path) != kFormat) {
    fail(path + ": format is not " + std::string(kFormat));
  }
  const std::string saved_loop = read_string_attribute(f.id, "loop", path);
  if (saved_loop != loop) {
    fail(path + " was written after loop execution " + std::to_string(st.executions) + " at " +
         saved_loop + ", but this run's execution " + std::to_string(st.executions) +
         " is the loop at " + loop + " (another program, or other arguments?)");
  }
  for (std::size_t i = 0; i < st.arrays.size(); ++i) {
    ArrayEntry& a = st.arrays[i];
    std::size_t elems = 1;
    for (auto x : a.shape) {
      elems *= static_cast<std::size_t>(x);
    }
    read_dataset(f.id, array_path(i, a), h5_type(a.element_type), elems, a.elem_bytes, a.pending,
                 path);
    a.has_pending = true;
  }
  for (std::size_t i = 0; i < st.datasets.size(); ++i) {
    DatasetEntry& d = st.datasets[i];
    std::vector<char> ids;
    read_dataset(f.id, dataset_path(i) + "/ids", H5T_NATIVE_UINT64, static_cast<std::size_t>(-1),
                 sizeof(std::uint64_t), ids, path);
    const std::size_t n = ids.size() / sizeof(std::uint64_t);
    read_dataset(f.id, dataset_path(i) + "/records", H5T_NATIVE_UINT8, n * d.record_bytes, 1,
                 d.pending_records, path);
    d.pending_ids.resize(n);
    std::memcpy(d.pending_ids.data(), ids.data(), ids.size());
    d.has_pending = true;
  }
}

/// Fault injection for tests: ROTOR_TEST_KILL_AFTER_CHECKPOINT=N[:RANK] makes RANK (default 0)
/// SIGKILL itself right after the checkpoint of execution N is complete.
void die_if_asked(std::int64_t executions) {
  const char* v = std::getenv("ROTOR_TEST_KILL_AFTER_CHECKPOINT");
  if (!v || !*v) {
    return;
  }
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  const int rank = (end && *end == ':') ? std::atoi(end + 1) : 0;
  if (n == executions && comm().rank() == rank) {
    std::fprintf(stderr, "[rank %d] rotor: ROTOR_TEST_KILL_AFTER_CHECKPOINT=%s: killing myself\n",
                 rank, v);
    std::fflush(stderr);
    std::raise(SIGKILL);
  }
}

} // namespace

bool parse_checkpoint_flag(const std::string& name, const std::string& value, bool has_value,
                           SessionSettings& s) {
  if (name == "--rotor-checkpoint") {
    if (!has_value || value.empty()) {
      throw SettingsError("rotor: --rotor-checkpoint needs a directory (--rotor-checkpoint=DIR)");
    }
    s.checkpoint_dir = value;
    return true;
  }
  if (name == "--rotor-checkpoint-every") {
    char* end = nullptr;
    long n = has_value ? std::strtol(value.c_str(), &end, 10) : 0;
    if (!has_value || value.empty() || *end != '\0' || n < 1 || n > 1000000000) {
      throw SettingsError("rotor: --rotor-checkpoint-every='" + value +
                          "': expected a number of loop executions >= 1");
    }
    s.checkpoint_every = static_cast<int>(n);
    return true;
  }
  if (name == "--rotor-resume") {
    if (has_value) {
      throw SettingsError("rotor: --rotor-resume takes no value");
    }
    s.resume = true;
    return true;
  }
  return false;
}

void finish_checkpoint_settings(SessionSettings& s, bool use_environment) {
  if (use_environment) {
    if (const char* v = std::getenv("ROTOR_CHECKPOINT"); v && s.checkpoint_dir.empty()) {
      s.checkpoint_dir = v;
    }
    if (const char* v = std::getenv("ROTOR_CHECKPOINT_EVERY"); v && s.checkpoint_every == 1) {
      parse_checkpoint_flag("--rotor-checkpoint-every", v, true, s);
    }
    if (const char* v = std::getenv("ROTOR_RESUME"); v && *v && std::string(v) != "0") {
      s.resume = true;
    }
  }
  if (s.resume && s.checkpoint_dir.empty()) {
    throw SettingsError(
        "rotor: --rotor-resume needs --rotor-checkpoint=DIR (where to resume from)");
  }
}

void checkpoint_at_session_end() {
  const CheckpointState& st = state();
  if (st.resume_from > st.executions && comm().rank() == 0) {
    std::fprintf(stderr,
                 "rotor: warning: --rotor-resume: the checkpoint holds %lld loop executions but "
                 "this run had only %lld; nothing was restored (another program, or other "
                 "arguments?)\n",
                 static_cast<long long>(st.resume_from), static_cast<long long>(st.executions));
  }
}

bool checkpoint_enabled() {
  return !settings().checkpoint_dir.empty();
}

/// Resume, a skipped execution: the bound arrays get the checkpoint's values at once (each array
/// once), so serial code between skipped loops sees the checkpoint's state (e.g. an invariant
/// check over counts), not the initial one. The end of the last skipped execution restores again.
void preview_arrays(std::vector<ArrayBinding>& arrays) {
  CheckpointState& st = state();
  const std::string path = checkpoint_file();
  File f;
  for (auto& b : arrays) {
    entry_for(b);
    for (std::size_t i = 0; i < st.arrays.size(); ++i) {
      ArrayEntry& e = st.arrays[i];
      if (e.identity != b.identity || e.shape != b.shape || e.previewed) {
        continue;
      }
      e.previewed = true;
      if (f.id < 0) {
        f.id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f.id < 0) {
          fail("cannot open " + path);
        }
      }
      const std::string name = array_path(i, e);
      if (H5Lexists(f.id, "/arrays", H5P_DEFAULT) <= 0 ||
          H5Lexists(f.id, name.c_str(), H5P_DEFAULT) <= 0) {
        continue;
      }
      std::vector<char> values;
      read_dataset(f.id, name, h5_type(e.element_type), byte_size(b) / e.elem_bytes, e.elem_bytes,
                   values, path);
      std::memcpy(b.data, values.data(), values.size());
    }
  }
}

bool checkpoint_before_execution(const codegen::LoopSpec& spec, SpaceAccess& space,
                                 std::vector<ArrayBinding>& arrays) {
  CheckpointState& st = state();
  if (settings().resume && st.resume_from < 0) {
    st.resume_from = read_resume_point();
  }
  if (!space.is_index_space()) {
    space.ensure_ids(); // ids = positions in the loaded dataset, the same in every run
  }
  const bool skip = st.executions < st.resume_from;
  if (skip) {
    preview_arrays(arrays);
  } else {
    put_back_arrays(arrays);
    if (DatasetEntry* d = dataset_entry_for(spec, space)) {
      put_back_records(*d, space);
    }
  }
  return skip;
}

void checkpoint_after_execution(const codegen::LoopSpec& spec, SpaceAccess& space,
                                std::vector<ArrayBinding>& arrays, bool skipped,
                                std::vector<char>& reductions) {
  CheckpointState& st = state();
  if (skipped) {
    const auto i = static_cast<std::size_t>(st.executions);
    const std::uint64_t begin = st.reduction_offsets[i], end = st.reduction_offsets[i + 1];
    if (end - begin != reductions.size()) {
      fail("loop execution " + std::to_string(i + 1) + " (" + loop_where(spec) + ") has " +
           std::to_string(reductions.size()) + " bytes of reductions, the checkpoint " +
           std::to_string(end - begin) + " (another program, or other arguments?)");
    }
    reductions.assign(st.reduction_log.begin() + static_cast<std::ptrdiff_t>(begin),
                      st.reduction_log.begin() + static_cast<std::ptrdiff_t>(end));
  } else if (st.executions + 1 == static_cast<std::int64_t>(st.reduction_offsets.size())) {
    st.reduction_log.insert(st.reduction_log.end(), reductions.begin(), reductions.end());
    st.reduction_offsets.push_back(st.reduction_log.size());
  }
  ++st.executions;
  // The previous execution of this loop site: arrays bound since then form the current cycle
  // (typically one epoch) and are alive now; older ones are put back at their next binding.
  std::int64_t previous_of_site = 0;
  const std::string site = loop_where(spec);
  bool seen_site = false;
  for (auto& [name, last] : st.last_of_site) {
    if (name == site) {
      previous_of_site = last;
      last = st.executions;
      seen_site = true;
    }
  }
  if (!seen_site) {
    st.last_of_site.emplace_back(site, st.executions);
  }
  for (auto& b : arrays) {
    ArrayEntry& e = entry_for(b);
    e.data = b.data;
    e.last_bound = st.executions;
    if (!skipped) {
      const std::size_t n = byte_size(b);
      e.snapshot.assign(b.data, b.data + n);
    }
  }
  DatasetEntry* d = dataset_entry_for(spec, space);
  if (d && !skipped) {
    d->ids = space.ids();
    d->records.assign(space.record_data(),
                      space.record_data() + space.local_count() * d->record_bytes);
  }
  if (skipped && st.executions == st.resume_from) {
    load_checkpoint(site);
    put_back_arrays(arrays);
    for (auto& e : st.arrays) {
      if (e.has_pending && e.last_bound > previous_of_site && e.data) {
        std::memcpy(e.data, e.pending.data(), e.pending.size());
        e.snapshot = std::move(e.pending);
        e.pending.clear();
        e.has_pending = false;
      }
    }
    if (d) {
      put_back_records(*d, space);
    }
    // The restored values are the snapshot a checkpoint written now would hold.
    for (std::size_t i = 0; i < st.arrays.size(); ++i) {
      if (st.arrays[i].has_pending) {
        st.arrays[i].snapshot = st.arrays[i].pending;
      }
    }
    for (auto& b : arrays) {
      entry_for(b).snapshot.assign(b.data, b.data + byte_size(b));
    }
    for (auto& ds : st.datasets) {
      if (ds.has_pending) {
        ds.ids = ds.pending_ids;
        ds.records = ds.pending_records;
      }
    }
    if (d) {
      d->ids = space.ids();
      d->records.assign(space.record_data(),
                        space.record_data() + space.local_count() * d->record_bytes);
    }
    return;
  }
  if (!skipped && st.executions % settings().checkpoint_every == 0) {
    write_checkpoint(spec);
    die_if_asked(st.executions);
  }
}

} // namespace rotor::detail

namespace rotor {

std::int64_t restored_loop_executions() {
  const detail::CheckpointState& st = detail::state();
  return st.resume_from > 0 ? std::min(st.executions, st.resume_from) : 0;
}

} // namespace rotor
