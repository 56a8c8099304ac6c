"""e2e_test: a cc_test that runs TorchScan's real binaries in real processes."""

def e2e_test(name, size, data = [], deps = [], **kwargs):
    """The cc_test of <name>.cc with what every end-to-end test needs.

    Args:
      name: the test; its source is <name>.cc.
      size: Bazel's test size ("medium", "large").
      data: more runfiles besides :binaries (torchscand, the worker, the RSS child, the client).
      deps: more libraries besides :e2e_support and gtest.
      **kwargs: other cc_test attributes (timeout, tags).
    """
    native.cc_test(
        name = name,
        size = size,
        srcs = [name + ".cc"],
        data = [":binaries"] + data,
        deps = [":e2e_support", "@gtest"] + deps,
        **kwargs
    )
