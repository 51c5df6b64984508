"""Compile the CUDA kernels on a machine without a GPU.

* every kernel instantiation the GPU backend can request (each registered semiring on each of
  its dtypes, MUL(a, x) variants for mxv, int32/int64 indices, pattern/valued) is compiled with
  ``nvcc -arch=sm_90`` (to PTX; those with int64 indices and values, which contain every functor
  and atomic, all the way to SASS with ``-c``) -- a CUDA syntax or template error fails here;
* every (monoid, operator, dtype) that ``supports()`` accepts -- user-defined semirings included --
  is compiled to PTX for the scalar kernels, which exercise every functor and every atomic;
* the .cuh files must stay NVRTC-compatible (CuPy compiles them at run time): no #include;
* when an NVRTC library is loadable (the ``nvidia-cuda-nvrtc-cu12`` wheel or a CUDA toolkit),
  a sample of modules is compiled exactly as CuPy does (name expressions, lowered names).

Skipped when ``nvcc`` (resp. libnvrtc) is not available.  The nvcc compile takes about 6 minutes on CI's two cores
(its jobs run in parallel; each may take up to 600 s, which a loaded machine has exceeded).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from spla.backends import gpu

NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")


# popcount's ElementwiseKernel body, wrapped the way CuPy wraps it (one element per thread)
POPCOUNT_CHECK = """
template <class T>
__global__ void spla_popcount_check(const T* xs, int* ys, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const T x = xs[i];
    int y;
    %s;
    ys[i] = y;
}
""" % gpu.POPCOUNT_OP
POPCOUNT_NAMES = [f"spla_popcount_check<{t}>" for t in ("int", "unsigned int", "long long", "unsigned long long")]


def _translation_unit(names):
    """A .cu that includes the kernel headers and takes the address of every instantiation."""
    lines = [f'#include "{gpu.SPMV_SOURCE}"', f'#include "{gpu.BITS_SOURCE}"', f'#include "{gpu.FRONTIER_SOURCE}"',
             POPCOUNT_CHECK,
             "extern void* const spla_instances[];", "void* const spla_instances[] = {"]
    lines += [f"    (void*)&{n}," for n in names]
    lines.append("};")
    return "\n".join(lines) + "\n"


def _compile_all(tmp_path, jobs):
    """Start every nvcc job [(names, extra flags)] in parallel; return [(cmd, returncode, output)]."""
    procs = []
    for n, (names, flags) in enumerate(jobs):
        src = tmp_path / f"spla_kernels_{n}.cu"
        src.write_text(_translation_unit(names))
        cmd = [NVCC, "-arch=sm_90", "-std=c++17", *flags, "-o", os.devnull, str(src)]
        procs.append((cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
    results = []
    for cmd, p in procs:
        out, _ = p.communicate(timeout=600)
        results.append((cmd, p.returncode, out))
    return results


def test_headers_are_nvrtc_compatible():
    for path in (gpu.SPMV_SOURCE, gpu.BITS_SOURCE, gpu.FRONTIER_SOURCE):
        code = re.sub(r"//[^\n]*", "", path.read_text())  # drop comments
        assert not re.search(r"^\s*#\s*include", code, re.M), f"{path.name}: NVRTC has no standard headers"
        for forbidden in ("std::", "size_t", "int64_t", "uint64_t", "int32_t", "uint32_t", "printf"):
            assert forbidden not in code, f"{path.name} uses {forbidden!r}, which NVRTC has no header for"


def test_every_semiring_and_dtype_has_a_kernel():
    from spla import semirings

    for name in semirings.names():
        sr = semirings.get(name)
        for dt in sr.dtypes:
            for kernel in gpu.KERNELS:
                ok, why = gpu.supports(kernel, sr, dt)
                assert ok, f"{kernel} {name} {dt}: {why}"
    assert not gpu.supports("scCOOC", "plus_times", np.float16)[0]
    assert not gpu.supports("nope", "plus_times", np.float32)[0]


def _cross_product_names():
    """scCSC, scCOOC and merge for every (monoid, operator, dtype) with a functor (int32, valued)."""
    names = set()
    for add, (_, add_dtypes) in gpu.ADD_FUNCTORS.items():
        for mul, (_, mul_dtypes) in gpu.MUL_FUNCTORS.items():
            for dt in add_dtypes:
                if dt in mul_dtypes:
                    ex = gpu.name_expressions(add, mul, dt, np.int32, False)
                    names.update((ex["scCSC"], ex["scCOOC"], ex["merge"]))
    return sorted(names)


@needs_nvcc
def test_nvcc_compiles_every_instantiation(tmp_path):
    """All instantiations through the front end and code generation (-ptx); those with int64
    indices and values also through ptxas to SASS (-c): every atomic and functor is in that set."""
    names = gpu.all_name_expressions()
    assert len(names) > 100
    full = [n for n in names if "long long, false>" in n or not n.startswith(("spla_sc", "spla_ve"))]
    rest = sorted(set(names) - set(full))
    cross = sorted(set(_cross_product_names()) - set(names))
    nchunks = max(1, min(4, os.cpu_count() or 1))
    frontier = [name for q in (np.int32, np.int64) for i in (np.int32, np.int64)
                for name in gpu.frontier_name_expressions(q, i).values()]
    jobs = [(full + POPCOUNT_NAMES + frontier, ["-c"])] + [(rest[i::nchunks], ["-ptx"]) for i in range(nchunks)]
    jobs.append((cross, ["-ptx"]))
    failures = [f"$ {' '.join(cmd)}\n{out}" for cmd, rc, out in _compile_all(tmp_path, jobs) if rc != 0]
    assert not failures, "nvcc failed:\n" + "\n".join(failures)[-20000:]


# ---------------------------------------------------------------------------------------------
# NVRTC (what CuPy uses), when a libnvrtc can be loaded
# ---------------------------------------------------------------------------------------------
def _find_nvrtc():
    candidates = []
    try:
        import nvidia.cuda_nvrtc  # the nvidia-cuda-nvrtc-cu12 wheel

        for d in nvidia.cuda_nvrtc.__path__:
            candidates += sorted(glob.glob(os.path.join(d, "lib", "libnvrtc.so*")))
    except ImportError:
        pass
    found = ctypes.util.find_library("nvrtc")
    if found:
        candidates.append(found)
    for root in ("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"):
        candidates += sorted(glob.glob(os.path.join(root, "libnvrtc.so*")))
    for c in candidates:
        if "builtins" in os.path.basename(c) or ".alt." in os.path.basename(c):
            continue
        try:
            return ctypes.CDLL(c)
        except OSError:
            continue
    return None


def _nvrtc_compile(lib, source, names, options=(b"-std=c++17", b"--gpu-architecture=compute_90")):
    """Compile like cupy.RawModule(name_expressions=...); return {name: lowered name}."""
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"spla.cu", 0, None, None) == 0
    try:
        for n in names:
            assert lib.nvrtcAddNameExpression(prog, n.encode()) == 0
        opts = (ctypes.c_char_p * len(options))(*options)
        rc = lib.nvrtcCompileProgram(prog, len(options), opts)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        assert rc == 0, f"NVRTC failed ({rc}):\n{log.value.decode(errors='replace')[-10000:]}"
        lowered = {}
        for n in names:
            ptr = ctypes.c_char_p()
            assert lib.nvrtcGetLoweredName(prog, n.encode(), ctypes.byref(ptr)) == 0, n
            lowered[n] = ptr.value.decode()
        return lowered
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def test_nvrtc_compiles_sample_modules():
    lib = _find_nvrtc()
    if lib is None:
        pytest.skip("no libnvrtc to load (pip install nvidia-cuda-nvrtc-cu12 to run this check)")
    source = gpu.SPMV_SOURCE.read_text()
    sample = [("plus", "times", np.float32, np.int32, True), ("plus", "times", np.int64, np.int64, False),
              ("min", "plus", np.float64, np.int32, False), ("any", "pair", np.bool_, np.int64, True),
              ("lor", "land", np.bool_, np.int32, False), ("bor", "second", np.uint64, np.int32, False),
              ("max", "first", np.uint32, np.int64, True), ("any", "second", np.int32, np.int32, False)]
    for add, mul, dt, idx, pattern in sample:
        names = list(gpu.name_expressions(add, mul, dt, idx, pattern).values())
        lowered = _nvrtc_compile(lib, source, names)
        assert all(v.startswith("_Z") for v in lowered.values())
    lowered = _nvrtc_compile(lib, gpu.BITS_SOURCE.read_text(),
                             ["spla_weighted_rowsum<true>", "spla_weighted_rowsum<false>"])
    assert len(set(lowered.values())) == 2
    names = list(gpu.frontier_name_expressions(np.int32, np.int32).values())
    lowered = _nvrtc_compile(lib, gpu.FRONTIER_SOURCE.read_text(), names)
    assert len(set(lowered.values())) == len(names)
