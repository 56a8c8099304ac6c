// Test data: writes two TorchScript check modules into DIR, made with
// torch::jit::Module::define: pass.pt (returns None) and assert.pt (asserts the outputs are
// equal, which a per-sample versus batch comparison in float32 rarely is bit for bit, so it
// is written to always fail: "outputs differ on purpose").
//   make_check_modules DIR
#include <cstdio>
#include <string>

#include <torch/script.h>

namespace {

void Save(const std::string& path, const std::string& source) {
  torch::jit::Module m("check");
  m.define(source);
  m.save(path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  Save(dir + "/pass.pt", "def forward(self, a: Tensor, b: Tensor) -> None:\n    pass\n");
  Save(dir + "/assert.pt",
       "def forward(self, a: Tensor, b: Tensor) -> None:\n    assert False, \"outputs differ on purpose\"\n");
  return 0;
}
