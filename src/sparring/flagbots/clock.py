"""A monotonic clock that compiled code can read: ``monotonic_ns()`` inside ``@njit`` kernels.

The search checks its deadline between nodes. numba has no clock of its own, and a ctypes call
would make every kernel that uses it uncacheable (a function pointer of this process baked in);
this intrinsic declares libc's ``clock_gettime`` by name instead, so the symbol is resolved in
each process when the (cached) code is loaded. ``CLOCK_MONOTONIC`` is the clock of
``time.monotonic_ns()``: a deadline computed in Python is compared with it directly. A call costs
~30 ns (the vDSO).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CLOCK_MONOTONIC = 1  # Linux's clockid_t for time.monotonic_ns()


@intrinsic
def monotonic_ns(typingctx):
    """Nanoseconds of ``CLOCK_MONOTONIC`` (``time.monotonic_ns()``), from compiled code."""

    def codegen(context, builder, signature, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])  # tv_sec, tv_nsec on 64-bit Linux
        fnty = ir.FunctionType(i32, [i32, timespec.as_pointer()])
        clock_gettime = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(clock_gettime, [ir.Constant(i32, CLOCK_MONOTONIC), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return types.int64(), codegen
