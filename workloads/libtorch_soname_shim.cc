// Empty: its SONAME (libtorch.so) is the point (workloads/libtorch_soname.h).
