// HDF5 output and input of DistArrays (serial HDF5; rank 0 does the file work).
#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/InputError.h"
#include "rotor/distarray/detail/Collective.h"
#include "rotor/distarray/detail/Hdf5MemoryType.h"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>
#include <utility>
#include <vector>

namespace rotor::detail {
namespace {

hid_t file_type_of(ElementType t) {
  switch (t) {
  case ElementType::f32:
    return H5T_IEEE_F32LE;
  case ElementType::f64:
    return H5T_IEEE_F64LE;
  case ElementType::i32:
    return H5T_STD_I32LE;
  case ElementType::i64:
    return H5T_STD_I64LE;
  case ElementType::u32:
    return H5T_STD_U32LE;
  case ElementType::u64:
    return H5T_STD_U64LE;
  }
  unknown_element_type(t);
}

std::size_t element_bytes(ElementType t) {
  return (t == ElementType::f32 || t == ElementType::i32 || t == ElementType::u32) ? 4 : 8;
}

/// Closes an HDF5 handle when it goes out of scope.
class Handle {
public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) {
      close_(id_);
    }
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

/// Silences HDF5's own error-stack printing while Rotor reports errors itself.
class QuietHdf5 {
public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

std::string shape_text(const std::int64_t* shape, int rank) {
  std::string s = "(";
  for (int d = 0; d < rank; ++d) {
    s += (d ? ", " : "") + std::to_string(shape[d]);
  }
  return s + ")";
}

void fsync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

/// Rank 0's part of save_array_hdf5; returns "" or what went wrong.
std::string write_on_root(const std::string& path, const std::string& name, ElementType type,
                          const std::int64_t* shape, int rank, const void* data) {
  namespace fs = std::filesystem;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::error_code ec;
  const bool extend = fs::exists(path, ec);
  if (extend) {
    fs::copy_file(path, tmp, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      return "cannot copy to " + tmp + ": " + ec.message();
    }
  }
  QuietHdf5 quiet;
  {
    Handle file(extend ? H5Fopen(tmp.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)
                       : H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                H5Fclose);
    if (!file.ok()) {
      fs::remove(tmp, ec);
      return extend ? "exists but is not an HDF5 file (or is not writable)"
                    : "cannot create " + tmp + ": " + std::strerror(errno);
    }
    if (H5Lexists(file.get(), name.c_str(), H5P_DEFAULT) > 0) {
      H5Ldelete(file.get(), name.c_str(), H5P_DEFAULT);
    }
    std::vector<hsize_t> dims(shape, shape + rank);
    Handle space(H5Screate_simple(rank, dims.data(), nullptr), H5Sclose);
    Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    Handle dset(H5Dcreate2(file.get(), name.c_str(), file_type_of(type), space.get(), lcpl.get(),
                           H5P_DEFAULT, H5P_DEFAULT),
                H5Dclose);
    if (!dset.ok()) {
      fs::remove(tmp, ec);
      return "cannot create dataset '" + name + "'";
    }
    std::int64_t count = 1;
    for (int d = 0; d < rank; ++d) {
      count *= shape[d];
    }
    if (count > 0 && H5Dwrite(dset.get(), static_cast<hid_t>(hdf5_memory_type(type)), H5S_ALL,
                              H5S_ALL, H5P_DEFAULT, data) < 0) {
      fs::remove(tmp, ec);
      return "cannot write dataset '" + name + "'";
    }
  }
  fsync_path(tmp);
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return "cannot rename " + tmp + ": " + ec.message();
  }
  return "";
}

/// Rank 0's part of load_array_hdf5; returns "" or what went wrong.
std::string read_on_root(const std::string& path, const std::string& name, ElementType type,
                         const std::int64_t* shape, int rank, void* data) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return "no such file";
  }
  QuietHdf5 quiet;
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) {
    return "not an HDF5 file";
  }
  if (H5Lexists(file.get(), name.c_str(), H5P_DEFAULT) <= 0) {
    return "no dataset '" + name + "'";
  }
  Handle dset(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dset.ok()) {
    return "'" + name + "' is not a dataset";
  }
  Handle space(H5Dget_space(dset.get()), H5Sclose);
  const int file_rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(file_rank, 0)));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  std::vector<std::int64_t> file_shape(dims.begin(), dims.end());
  if (file_rank != rank || !std::equal(file_shape.begin(), file_shape.end(), shape)) {
    return "dataset '" + name + "' has shape " + shape_text(file_shape.data(), file_rank) +
           ", the array " + shape_text(shape, rank);
  }
  Handle ftype(H5Dget_type(dset.get()), H5Tclose);
  const H5T_class_t cls = H5Tget_class(ftype.get());
  const bool want_float = type == ElementType::f32 || type == ElementType::f64;
  if ((want_float && cls != H5T_FLOAT) || (!want_float && cls != H5T_INTEGER)) {
    return "dataset '" + name + "' holds " +
           (cls == H5T_FLOAT ? "floating-point" : "non-floating") + " values, the array " +
           (want_float ? "floating-point" : "integer") + " ones";
  }
  std::int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    count *= shape[d];
  }
  if (count > 0 && H5Dread(dset.get(), static_cast<hid_t>(hdf5_memory_type(type)), H5S_ALL, H5S_ALL,
                           H5P_DEFAULT, data) < 0) {
    return "cannot read dataset '" + name + "' (truncated or corrupt file?)";
  }
  return "";
}

} // namespace

void save_array_hdf5(const std::string& path, const std::string& name, ElementType type,
                     const std::int64_t* shape, int rank, const void* data) {
  std::string error;
  if (collective().rank() == 0) {
    try {
      error = write_on_root(path, name, type, shape, rank, data);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  error = broadcast_from_root(std::move(error));
  if (!error.empty()) {
    throw std::runtime_error("[rank 0] " + path + ": " + error);
  }
}

void load_array_hdf5(const std::string& path, const std::string& name, ElementType type,
                     const std::int64_t* shape, int rank, void* data) {
  std::string error;
  Collective& c = collective();
  if (c.rank() == 0) {
    try {
      error = read_on_root(path, name, type, shape, rank, data);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  error = broadcast_from_root(std::move(error));
  if (!error.empty()) {
    throw InputError(0, path, 0, error);
  }
  std::int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    count *= shape[d];
  }
  if (count > 0) {
    c.broadcast(data, static_cast<std::size_t>(count) * element_bytes(type), 0);
  }
}

static_assert(sizeof(hid_t) == sizeof(std::int64_t), "hdf5_memory_type returns an hid_t");

std::int64_t hdf5_memory_type(ElementType t) {
  switch (t) {
  case ElementType::f32:
    return H5T_NATIVE_FLOAT;
  case ElementType::f64:
    return H5T_NATIVE_DOUBLE;
  case ElementType::i32:
    return H5T_NATIVE_INT32;
  case ElementType::i64:
    return H5T_NATIVE_INT64;
  case ElementType::u32:
    return H5T_NATIVE_UINT32;
  case ElementType::u64:
    return H5T_NATIVE_UINT64;
  }
  unknown_element_type(t);
}

} // namespace rotor::detail
