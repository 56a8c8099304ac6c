// Test data for verdict tests: writes DIR/work.pt, a TorchScript module made with
// torch::jit::Module::define whose two methods return the same tensor, bit for bit:
//   forward(x) = tanh(x @ w)
//   heavy(x)   = the same plus 0 * z, where z is a chain of 40 more tanh(z @ w) (about 40x
//                the work; each step needs the one before, so the JIT cannot fold them, and
//                adding 0 * a finite z leaves the result bit for bit)
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
    z = y
    for _ in range(40):
        z = torch.tanh(torch.mm(z, self.w))
    return y + 0.0 * z
)");
  m.save(std::string(argv[1]) + "/work.pt");
  return 0;
}
