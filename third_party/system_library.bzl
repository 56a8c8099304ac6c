"""system_library: a cc_library over a Debian library, with link flags from pkg-config.

Headers live in /usr/include, which the auto-configured toolchain already allows, so the
generated target carries the -D defines and link options only. Fails with the pkg-config error when a
package is missing (run scripts/setup.sh).
"""

def _pkg_config(ctx, flag):
    result = ctx.execute(["pkg-config", flag] + ctx.attr.pkg_config)
    if result.return_code != 0:
        fail("pkg-config %s %s failed: %s (run scripts/setup.sh)" %
             (flag, " ".join(ctx.attr.pkg_config), result.stderr))
    return [f for f in result.stdout.strip().split(" ") if f]

def _system_library_impl(ctx):
    linkopts = []
    defines = []
    if ctx.attr.pkg_config:
        linkopts = _pkg_config(ctx, "--libs")
        defines = [f[2:] for f in _pkg_config(ctx, "--cflags") if f.startswith("-D")]
    linkopts = linkopts + ctx.attr.extra_linkopts
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "{name}",
    defines = {defines},
    linkopts = {linkopts},
)
""".format(name = ctx.name, defines = repr(defines), linkopts = repr(linkopts)))

system_library = repository_rule(
    implementation = _system_library_impl,
    attrs = {
        "pkg_config": attr.string_list(doc = "pkg-config package names"),
        "extra_linkopts": attr.string_list(doc = "flags appended after pkg-config's"),
    },
    local = True,
)
