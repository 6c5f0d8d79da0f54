// libFuzzer target: load_binary. Inputs are arbitrary bytes; a valid header prefix is mutated
// from the seed corpus.
#include "FuzzInput.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = rotor_fuzz::write_input(data, size);
  rotor_fuzz::expect_ok_or_input_error([&] {
    auto d = rotor::load_binary<rotor_fuzz::Rating>(path);
    if (static_cast<std::uint64_t>(d.size()) * sizeof(rotor_fuzz::Rating) + 40 != size) {
      std::abort(); // accepted a file of the wrong size
    }
  });
  return 0;
}
