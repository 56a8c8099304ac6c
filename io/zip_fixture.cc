#include "io/zip_fixture.h"

#include <cstdint>

namespace torchscan {
namespace {

void Put(std::string* out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

std::string ZipOf(const std::vector<std::string>& names, bool zip64, const std::string& comment) {
  std::string out;
  std::vector<uint64_t> locals;
  for (const std::string& name : names) {
    locals.push_back(out.size());
    Put(&out, 0x04034b50, 4);
    out.append(22, '\0');
    Put(&out, name.size(), 2);
    Put(&out, 0, 2);
    out += name;
  }
  const uint64_t directory = out.size();
  for (size_t i = 0; i < names.size(); ++i) {
    Put(&out, 0x02014b50, 4);
    out.append(24, '\0');
    Put(&out, names[i].size(), 2);
    Put(&out, 0, 2);  // extra
    Put(&out, 0, 2);  // comment
    out.append(8, '\0');
    Put(&out, locals[i], 4);
    out += names[i];
  }
  const uint64_t directory_size = out.size() - directory;
  if (zip64) {
    const uint64_t zip64_end = out.size();
    Put(&out, 0x06064b50, 4);
    Put(&out, 44, 8);
    out.append(4 + 8, '\0');
    Put(&out, names.size(), 8);
    Put(&out, names.size(), 8);
    Put(&out, directory_size, 8);
    Put(&out, directory, 8);
    Put(&out, 0x07064b50, 4);
    Put(&out, 0, 4);
    Put(&out, zip64_end, 8);
    Put(&out, 1, 4);
  }
  Put(&out, 0x06054b50, 4);
  out.append(4, '\0');
  Put(&out, zip64 ? 0xffff : names.size(), 2);
  Put(&out, zip64 ? 0xffff : names.size(), 2);
  Put(&out, zip64 ? 0xffffffff : directory_size, 4);
  Put(&out, zip64 ? 0xffffffff : directory, 4);
  Put(&out, comment.size(), 2);
  return out + comment;
}

std::string TorchScriptZip() { return ZipOf({"m/data.pkl", "m/code/__torch__/m.py", "m/constants.pkl", "m/version"}); }

std::string TorchSaveZip() { return ZipOf({"x/data.pkl", "x/data/0", "x/version"}); }

std::string AotInductorZip() {
  return ZipOf({"m/data/aotinductor/model/c5vy.wrapper.cpp", "m/data/aotinductor/model/c5vy.wrapper.so",
                "m/archive_format", "m/archive_version"});
}

std::string ExportedProgramZip() {
  return ZipOf({"m/models/model.json", "m/data/weights/weight_0", "m/archive_format"});
}

}  // namespace torchscan
