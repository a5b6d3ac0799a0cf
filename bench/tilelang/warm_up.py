"""A warm-up program for tilelang (autodd --warm-up): the first error that tvm_ffi
raises in a process takes about 0.7 s to build (later ones take milliseconds), so
without this every candidate whose kernel hits a type mismatch runs into its time
limit. Raising one such error in the worker builds that state once."""

import tvm_ffi

try:
    tvm_ffi.get_global_func("script.ir_builder.tirx.SBlockAllocBuffer")(None)
except Exception:  # noqa: BLE001 - the error is the point
    pass
