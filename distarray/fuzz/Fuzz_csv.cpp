// libFuzzer target: load_csv. The first byte picks the options; the rest is the file.
#include "FuzzInput.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::uint8_t mode = data[0];
  rotor::CsvOptions o;
  const char delimiters[4] = {',', '\t', ' ', ';'};
  o.delimiter = delimiters[mode & 3];
  o.header = static_cast<rotor::CsvOptions::Header>((mode >> 2) % 3);
  o.allow_nonfinite = (mode & 0x10) != 0;
  o.ids_non_negative = (mode & 0x20) == 0;
  if (mode & 0x40) {
    o.named_fields = {0};
  }
  if (mode & 0x80) {
    o.columns = {2, 0, 1};
  }
  const std::string& path = rotor_fuzz::write_input(data + 1, size - 1);
  rotor_fuzz::expect_ok_or_input_error([&] {
    rotor::CsvNames names;
    auto d = rotor::load_csv<rotor_fuzz::Rating>(path, o, &names);
    if (d.size() <= 0) {
      std::abort(); // a successful load has records
    }
    if (!o.named_fields.empty()) {
      for (const auto& r : d) {
        if (r.user < 0 || static_cast<std::size_t>(r.user) >= names.names.at(0).size()) {
          std::abort(); // a name id outside the names
        }
      }
    }
  });
  return 0;
}
