"""Compile the CUDA kernels on a machine without a GPU.

* every kernel instantiation the GPU backend can request (each registered semiring on each of
  its dtypes, MUL(a, x) variants for mxv, int32/int64 indices, pattern/valued) is compiled with
  ``nvcc -arch=sm_90`` (to PTX; those with int64 indices and values, which contain every functor
  and atomic, all the way to SASS with ``-c``) -- a CUDA syntax or template error fails here;
* every (monoid, operator, dtype) that ``supports()`` accepts -- user-defined semirings included --
  is compiled to PTX for the scalar kernels, which exercise every functor and every atomic;
* the .cuh files must stay NVRTC-compatible (CuPy compiles them at run time): once
  ``spla.backends.cuda_source.load`` has inlined the local ``#include "..."`` lines (spmv.cuh is an
  umbrella over ``spla/kernels/spmv/*.cuh``), no #include is left and no standard library is used;
* ``cuda_source.load`` inlines every family file of the umbrella exactly once, and the inlined text
  defines every kernel and functor the backend names;
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
from pathlib import Path

import numpy as np
import pytest

from spla.backends import cuda_source
from spla.backends.gpu import compile as gpu

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
        code = re.sub(r"//[^\n]*", "", cuda_source.load(path))  # what NVRTC gets, without comments
        assert not re.search(r"^\s*#\s*include", code, re.M), f"{path.name}: NVRTC has no standard headers"
        for forbidden in ("std::", "size_t", "int64_t", "uint64_t", "int32_t", "uint32_t", "printf"):
            assert forbidden not in code, f"{path.name} uses {forbidden!r}, which NVRTC has no header for"


# ---------------------------------------------------------------------------------------------
# The umbrella spmv.cuh and spla.backends.cuda_source
# ---------------------------------------------------------------------------------------------
SPMV_PARTS = sorted((gpu.KERNEL_DIR / "spmv").glob("*.cuh"))


def test_load_inlines_every_family_file_exactly_once():
    assert len(SPMV_PARTS) >= 10
    text = cuda_source.load(gpu.SPMV_SOURCE)
    assert "#include" not in re.sub(r"//[^\n]*", "", text)
    for part in SPMV_PARTS:
        label = f"spmv/{part.name}"
        assert text.count(f'#line 1 "{label}"\n') == 1, label
        first = part.read_text().splitlines()[0]  # each part opens with a comment naming it
        assert text.count(first + "\n") == 1, label
        guard = re.search(r"^#ifndef (SPLA_\w+_CUH)$", part.read_text(), re.M).group(1)
        assert text.count(f"#define {guard}\n") == 1, label
    # the text is the umbrella's own lines with every include replaced: nothing else is added or lost
    parts_lines = sum(len(p.read_text().splitlines()) for p in SPMV_PARTS)
    assert len(text.splitlines()) > parts_lines
    files = cuda_source.files(gpu.SPMV_SOURCE)
    assert files[0] == gpu.SPMV_SOURCE.resolve()
    assert sorted(files[1:]) == [p.resolve() for p in SPMV_PARTS]
    assert cuda_source.files(gpu.BITS_SOURCE) == [gpu.BITS_SOURCE.resolve()]
    assert cuda_source.load(gpu.BITS_SOURCE) == gpu.BITS_SOURCE.read_text()
    assert cuda_source.load(gpu.FRONTIER_SOURCE) == gpu.FRONTIER_SOURCE.read_text()


def test_umbrella_defines_every_kernel_and_functor_the_backend_names():
    text = re.sub(r"//[^\n]*", "", cuda_source.load(gpu.SPMV_SOURCE))
    names = gpu.all_name_expressions(registered_only=False)
    kernels = {n.split("<")[0] for n in names} - {"spla_weighted_rowsum"}
    assert len(kernels) == 17, sorted(kernels)
    for k in sorted(kernels):
        assert len(re.findall(rf"__global__ void[^;{{]*\b{k}\(", text)) == 1, f"{k} is not defined exactly once"
    functors = {f for n in names for f in re.findall(r"spla_(?:add|mul)_\w+", n)}
    assert len(functors) == len(gpu.ADD_FUNCTORS) + len(gpu.MUL_FUNCTORS)
    for f in sorted(functors):
        assert len(re.findall(rf"^struct {f}\b", text, re.M)) == 1, f"functor {f} is not defined exactly once"


def test_load_inlines_recursively_once_and_keeps_system_includes(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "top.cuh").write_text('// top\n#include <cuda_fp16.h>\n#include "sub/a.cuh"  // a\n'
                                      '#include "c.cuh"\nint top_end;\n')
    (tmp_path / "sub" / "a.cuh").write_text('#include "../c.cuh"\nint a;\n')
    (tmp_path / "c.cuh").write_text("int c;\n")
    text = cuda_source.load(tmp_path / "top.cuh")
    assert text == ('// top\n#include <cuda_fp16.h>\n'
                    '#line 1 "sub/a.cuh"\n#line 1 "c.cuh"\nint c;\n\n#line 2 "sub/a.cuh"\nint a;\n\n#line 4 "top.cuh"\n'
                    '// #include "c.cuh": already inlined above\nint top_end;\n')
    assert cuda_source.files(tmp_path / "top.cuh") == [tmp_path / "top.cuh", tmp_path / "sub" / "a.cuh",
                                                       tmp_path / "c.cuh"]


def test_load_names_the_including_file_of_a_missing_include(tmp_path):
    (tmp_path / "top.cuh").write_text('int x;\n#include "nowhere.cuh"\n')
    with pytest.raises(FileNotFoundError, match=r"top\.cuh:2: #include \"nowhere\.cuh\""):
        cuda_source.load(tmp_path / "top.cuh")
    with pytest.raises(FileNotFoundError):
        cuda_source.load(tmp_path / "absent.cuh")


def test_package_data_ships_every_kernel_file():
    import fnmatch

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("no pyproject.toml (an installed spla)")
    text = pyproject.read_text()
    patterns = re.findall(r'"([^"]+)"', re.search(r"^spla = \[(.*)\]$", text, re.M).group(1))
    package = gpu.KERNEL_DIR.parent
    for source in (gpu.SPMV_SOURCE, gpu.BITS_SOURCE, gpu.FRONTIER_SOURCE):
        for f in cuda_source.files(source):
            rel = f.relative_to(package.resolve()).as_posix()
            assert any(fnmatch.fnmatchcase(rel, pat) and rel.count("/") == pat.count("/") for pat in patterns), \
                f"{rel} is not shipped by {patterns}"


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
    source = cuda_source.load(gpu.SPMV_SOURCE)
    sample = [("plus", "times", np.float32, np.int32, True), ("plus", "times", np.int64, np.int64, False),
              ("min", "plus", np.float64, np.int32, False), ("any", "pair", np.bool_, np.int64, True),
              ("lor", "land", np.bool_, np.int32, False), ("bor", "second", np.uint64, np.int32, False),
              ("max", "first", np.uint32, np.int64, True), ("any", "second", np.int32, np.int32, False)]
    for add, mul, dt, idx, pattern in sample:
        names = list(gpu.name_expressions(add, mul, dt, idx, pattern).values())
        lowered = _nvrtc_compile(lib, source, names)
        assert all(v.startswith("_Z") for v in lowered.values())
    lowered = _nvrtc_compile(lib, cuda_source.load(gpu.BITS_SOURCE),
                             ["spla_weighted_rowsum<true>", "spla_weighted_rowsum<false>"])
    assert len(set(lowered.values())) == 2
    names = list(gpu.frontier_name_expressions(np.int32, np.int32).values())
    lowered = _nvrtc_compile(lib, cuda_source.load(gpu.FRONTIER_SOURCE), names)
    assert len(set(lowered.values())) == len(names)


def test_defines_keep_their_modules_apart():
    """Kernels compiled under compile.defines(...) get the macros and never share a module with the
    default options; the default returns when the block ends."""
    args = ("plus", "times", np.dtype(np.float32).str, np.dtype(np.int32).str, True, 0)
    plain = gpu.spmv_module(*args, gpu.current_defines())
    with gpu.defines(SPLA_GROUP_SHORT=0, SPLA_TILE_R=4):
        extra = gpu.current_defines()
        assert extra == ("-DSPLA_GROUP_SHORT=0", "-DSPLA_TILE_R=4")
        changed = gpu.spmv_module(*args, extra)
    assert gpu.current_defines() == ()
    assert changed is not plain and gpu.spmv_module(*args, ()) is plain
    assert plain.options == gpu.NVRTC_OPTIONS and changed.options == gpu.NVRTC_OPTIONS + extra
