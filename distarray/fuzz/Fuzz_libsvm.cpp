// libFuzzer target: load_libsvm. The first byte picks the options; the rest is the file.
#include "FuzzInput.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  rotor::LibsvmOptions o;
  o.binary_labels = (data[0] & 1) == 0;
  o.num_features = (data[0] & 2) ? 0 : (data[0] >> 2);
  const std::string& path = rotor_fuzz::write_input(data + 1, size - 1);
  rotor_fuzz::expect_ok_or_input_error([&] {
    auto d = rotor::load_libsvm(path, o);
    if (d.features.rows() != d.examples.size()) {
      std::abort();
    }
    for (const auto& e : d.examples) {
      for (const auto& entry : d.features.row(e.row)) {
        if (entry.index < 0 || entry.index >= d.num_features) {
          std::abort(); // a feature outside [0, num_features)
        }
      }
    }
  });
  return 0;
}
