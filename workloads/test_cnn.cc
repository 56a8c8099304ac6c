#include "workloads/test_cnn.h"

#include <torch/torch.h>

namespace torchscan::workloads {

torch::jit::Module TestCnn() {
  torch::manual_seed(0);
  torch::jit::Module m("TestCnn");
  m.register_parameter("w1", torch::randn({16, 3, 3, 3}) * 0.1, false);
  m.register_parameter("b1", torch::randn({16}) * 0.1, false);
  m.register_parameter("w2", torch::randn({32, 16, 3, 3}) * 0.1, false);
  m.register_parameter("b2", torch::randn({32}) * 0.1, false);
  m.register_parameter("fw", torch::randn({10, 8192}) * 0.01, false);
  m.register_parameter("fb", torch::randn({10}) * 0.1, false);
  m.define(R"(
def forward(self, x):
    x = torch.relu(torch.conv2d(x, self.w1, self.b1, [1, 1], [1, 1]))
    x = torch.relu(torch.conv2d(x, self.w2, self.b2, [1, 1], [1, 1]))
    return torch.linear(torch.flatten(x, 1), self.fw, self.fb)
)");
  return m;
}

}  // namespace torchscan::workloads
