// Test data for verdict tests: writes DIR/work.pt, a TorchScript module made with
// torch::jit::Module::define whose two methods return the same tensor, bit for bit:
//   forward(x) = tanh(x @ w)
//   heavy(x)   = the same, computed 40 times in a loop (about 40x the work)
// so a comparison of the two methods has a known, large effect and passes an exact check.
//   make_work_module DIR
#include <cstdio>
#include <string>

#include <torch/script.h>
#include <torch/torch.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  torch::manual_seed(0);
  torch::jit::Module m("Work");
  m.register_parameter("w", torch::randn({64, 64}) / 8, /*is_buffer=*/false);
  m.define(R"(
def forward(self, x):
    return torch.tanh(torch.mm(x, self.w))

def heavy(self, x):
    y = torch.tanh(torch.mm(x, self.w))
    for _ in range(39):
        y = torch.tanh(torch.mm(x, self.w))
    return y
)");
  m.save(std::string(argv[1]) + "/work.pt");
  return 0;
}
