"""Compile the CUDA kernels on a machine without a GPU.

* by default, every kernel source is compiled with ``nvcc -arch=sm_90`` in a representative set
  of instantiations, a few jobs in parallel: every kernel template on both index types, pattern and
  valued, and on every domain (:data:`SAMPLE`, to SASS with ``-c``); every monoid and operator on
  every domain it is written for, with its atomic (scCOOC, to SASS); every (monoid, operator,
  domain) that ``supports()`` accepts, user-defined semirings included (scCOOC, to PTX); the bit
  word and frontier kernels; and each header of ``spla/kernels`` standing alone -- a CUDA syntax
  or template error fails here;
* ``-m exhaustive`` (the device round runs it) compiles every instantiation the GPU backend can
  request (each registered semiring on each of its domains, MUL(a, x) variants for mxv,
  int32/int64 indices, pattern/valued; those with int64 indices and values, which contain every
  functor and atomic, through ptxas to SASS, the rest to PTX) and scCSC, scCOOC and merge over
  the whole (monoid, operator, domain) cross product;
* the .cuh files must stay NVRTC-compatible (CuPy compiles them at run time): once
  ``spla.backends.cuda_source.load`` has inlined the local ``#include "..."`` lines (spmv.cuh is an
  umbrella over ``spla/kernels/spmv/*.cuh``), no #include is left and no standard library is used;
* ``cuda_source.load`` inlines every family file of the umbrella exactly once, and the inlined text
  defines every kernel and functor the backend names;
* when an NVRTC library is loadable (the ``nvidia-cuda-nvrtc-cu12`` wheel or a CUDA toolkit),
  the :data:`SAMPLE` modules are compiled exactly as CuPy does (name expressions, lowered names).

Skipped when ``nvcc`` (resp. libnvrtc) is not available.  The nvcc jobs run as many at a time as
there are cores; one that runs past :data:`NVCC_TIMEOUT` fails with a message that says so.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
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
             f'#include "{gpu.SSSP_SOURCE}"', POPCOUNT_CHECK,
             "extern void* const spla_instances[];", "void* const spla_instances[] = {"]
    lines += [f"    (void*)&{n}," for n in names]
    lines.append("};")
    return "\n".join(lines) + "\n"


#: seconds one nvcc job may take: far beyond what a job needs, so that only a stalled or badly
#: overloaded machine reaches it
NVCC_TIMEOUT = 600

#: (ADD, MUL, T, I, pattern) of the modules compiled by default (and by NVRTC where it loads):
#: together they cover every domain, every monoid, both index types, pattern and valued, and both
#: instantiations of the windows kernel
SAMPLE = [("plus", "times", np.float32, np.int32, True), ("plus", "times", np.int64, np.int64, False),
          ("min", "plus", np.float64, np.int32, False), ("any", "pair", np.bool_, np.int64, True),
          ("lor", "land", np.bool_, np.int32, False), ("bor", "second", np.uint64, np.int32, False),
          ("max", "first", np.uint32, np.int64, True), ("any", "second", np.int32, np.int32, False),
          ("plus", "first", np.float32, np.int64, True)]


def _cores():
    """The cores this process may run on (a container's share, not the host's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _run_nvcc(cmd, what):
    """Run one nvcc command; None when it succeeds, else the message of its failure."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)  # its own group: a timeout stops cicc and ptxas too
    try:
        out, _ = proc.communicate(timeout=NVCC_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return (f"$ {' '.join(cmd)}\nnvcc did not finish {what} within NVCC_TIMEOUT = {NVCC_TIMEOUT} s: the "
                "machine is stalled or overloaded (other jobs on its cores?); rerun it on a quieter machine")
    return None if proc.returncode == 0 else f"$ {' '.join(cmd)}\n{out}"


def _compile_all(tmp_path, jobs):
    """Compile every nvcc job [(names, extra flags)], as many at a time as there are cores; return
    the messages of the jobs that failed."""
    def job(n, names, flags):
        src = tmp_path / f"spla_kernels_{n}.cu"
        src.write_text(_translation_unit(names))
        cmd = [NVCC, "-arch=sm_90", "-std=c++17", *flags, "-o", os.devnull, str(src)]
        return _run_nvcc(cmd, f"compiling {len(names)} instantiations")

    with ThreadPoolExecutor(max_workers=_cores()) as pool:
        results = list(pool.map(lambda a: job(*a), [(n, names, flags) for n, (names, flags) in enumerate(jobs)]))
    return [r for r in results if r is not None]


def _assert_compiled(tmp_path, jobs):
    failures = _compile_all(tmp_path, jobs)
    assert not failures, "nvcc failed:\n" + "\n".join(failures)[-20000:]


def test_headers_are_nvrtc_compatible():
    for path in (gpu.SPMV_SOURCE, gpu.BITS_SOURCE, gpu.FRONTIER_SOURCE, gpu.SPGEMM_SOURCE, gpu.SSSP_SOURCE):
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
    # the kernels over entry lists share lists.cuh, inlined once in each; the weighted searches' module
    # also holds the one-block-per-source searches
    lists = gpu.KERNEL_DIR / "lists.cuh"
    small, rows = gpu.KERNEL_DIR / "sssp_small.cuh", gpu.KERNEL_DIR / "sssp_rows.cuh"
    for src, extra in ((gpu.FRONTIER_SOURCE, []), (gpu.SSSP_SOURCE, [small.resolve(), rows.resolve()])):
        assert cuda_source.files(src) == [src.resolve(), lists.resolve(), *extra]
        text = cuda_source.load(src)
        assert "#include" not in re.sub(r"//[^\n]*", "", text) and text.count('#line 1 "lists.cuh"\n') == 1


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
    for source in (gpu.SPMV_SOURCE, gpu.BITS_SOURCE, gpu.FRONTIER_SOURCE, gpu.SPGEMM_SOURCE, gpu.SSSP_SOURCE):
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


def _functor_combos():
    """Every (monoid, operator, domain) with a functor for each (what supports() accepts)."""
    return [(add, mul, dt) for add, (_, add_dtypes) in gpu.ADD_FUNCTORS.items()
            for mul, (_, mul_dtypes) in gpu.MUL_FUNCTORS.items() for dt in add_dtypes if dt in mul_dtypes]


def _functor_cover():
    """(monoid, operator, domain) triples in which every monoid and every operator meets every domain
    it is written for at least once: per domain, the longer of the two lists, the shorter cycled."""
    triples = []
    for dt in gpu.C_TYPES:
        adds = [a for a, (_, dts) in gpu.ADD_FUNCTORS.items() if dt in dts]
        muls = [m for m, (_, dts) in gpu.MUL_FUNCTORS.items() if dt in dts]
        triples += [(adds[i % len(adds)], muls[i % len(muls)], dt) for i in range(max(len(adds), len(muls)))]
    return triples


def _frontier_names():
    return [name for q in (np.int32, np.int64) for i in (np.int32, np.int64)
            for name in gpu.frontier_name_expressions(q, i).values()]


def _sssp_names():
    """The weighted shortest-path kernels: both flat and matrix index types, lengths read and every length 1."""
    from spla.backends.gpu.sssp import sssp_name_expressions

    names = {name for q in (np.int32, np.int64) for i in (np.int32, np.int64) for unit in (False, True)
             for name in sssp_name_expressions(q, i, unit).values()}
    return sorted(names)


def test_sample_covers_every_template_domain_and_functor():
    """What the default compile promises: SAMPLE names every kernel of a module on both index types,
    pattern and valued, every domain and every monoid; the functor cover pairs every monoid and every
    operator with every domain it is written for; the cross product is everything supports() accepts."""
    keys = set().union(*(gpu.name_expressions(*m) for m in SAMPLE))
    assert keys == set(gpu.name_expressions("plus", "times", np.float32, np.int32, True))
    for idx in gpu.INDEX_TYPES:
        for pattern in (False, True):
            modules = [gpu.name_expressions(*m) for m in SAMPLE if m[3] == idx and m[4] == pattern]
            assert modules, (idx, pattern)
            want = keys - ({"veCSC_windows", "windows_scan"} if not pattern else set())
            assert want <= set().union(*modules), (idx, pattern, want - set().union(*modules))
    assert {np.dtype(m[2]) for m in SAMPLE} == set(gpu.C_TYPES)
    assert {m[0] for m in SAMPLE} == set(gpu.ADD_FUNCTORS)
    cover = _functor_cover()
    assert {(a, dt) for a, _, dt in cover} == {(a, dt) for a, (_, dts) in gpu.ADD_FUNCTORS.items() for dt in dts}
    assert {(m, dt) for _, m, dt in cover} == {(m, dt) for m, (_, dts) in gpu.MUL_FUNCTORS.items() for dt in dts}
    assert set(cover) <= set(_functor_combos())
    from spla import semirings

    for name in semirings.names():  # the registered semirings are in the cross product, swapped or not
        sr = semirings.get(name)
        for dt in sr.dtypes:
            if np.dtype(dt) in gpu.C_TYPES:
                for swap in (False, True):
                    assert (sr.add.name, gpu.swap_op(sr.mul.name, swap), np.dtype(dt)) in _functor_combos()


@needs_nvcc
def test_nvcc_compiles_every_kernel_source(tmp_path):
    """Each translation unit includes every kernel source: the SAMPLE modules and the functor cover
    with every atomic through ptxas to SASS (-c), the bit word, frontier, weighted shortest-path and
    popcount kernels with them, and every (monoid, operator, domain) through scCOOC to PTX (-ptx)."""
    sample = sorted({name for m in SAMPLE for name in gpu.name_expressions(*m).values()})
    cover = sorted({gpu.name_expressions(a, m, dt, np.int32, False)["scCOOC"] for a, m, dt in _functor_cover()})
    cross = sorted({gpu.name_expressions(a, m, dt, np.int32, False)["scCOOC"] for a, m, dt in _functor_combos()})
    others = ["spla_weighted_rowsum<true>", "spla_weighted_rowsum<false>", *POPCOUNT_NAMES, *_frontier_names(),
              *_sssp_names()]
    _assert_compiled(tmp_path, [(sample[0::2], ["-c"]), (sample[1::2], ["-c"]), (cover + others, ["-c"]),
                                (cross, ["-ptx"])])


@needs_nvcc
def test_nvcc_compiles_each_header_alone(tmp_path):
    """Each part includes what it uses (docs/kernels.md): nvcc compiles any header of spla/kernels
    as the only include of a translation unit."""
    headers = sorted(gpu.KERNEL_DIR.glob("*.cuh")) + SPMV_PARTS
    assert len(headers) == 8 + len(SPMV_PARTS)

    def job(header):
        src = tmp_path / f"alone_{header.parent.name}_{header.stem}.cu"
        src.write_text(f'#include "{header}"\n')
        return _run_nvcc([NVCC, "-arch=sm_90", "-std=c++17", "-ptx", "-o", os.devnull, str(src)],
                         f"compiling {header.name} alone")

    with ThreadPoolExecutor(max_workers=_cores()) as pool:
        failures = [f for f in pool.map(job, headers) if f is not None]
    assert not failures, "nvcc failed:\n" + "\n".join(failures)[-20000:]


@needs_nvcc
def test_nvcc_timeout_names_the_job_and_the_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "NVCC_TIMEOUT", 0.001)
    failures = _compile_all(tmp_path, [(["spla_weighted_rowsum<true>"], ["-ptx"])])
    assert len(failures) == 1
    assert "nvcc did not finish compiling 1 instantiations within NVCC_TIMEOUT = 0.001 s" in failures[0]


def _cross_product_names():
    """scCSC, scCOOC and merge for every (monoid, operator, dtype) with a functor (int32, valued)."""
    names = set()
    for add, mul, dt in _functor_combos():
        ex = gpu.name_expressions(add, mul, dt, np.int32, False)
        names.update((ex["scCSC"], ex["scCOOC"], ex["merge"]))
    return sorted(names)


@pytest.mark.exhaustive
@needs_nvcc
def test_nvcc_compiles_every_instantiation(tmp_path):
    """All instantiations through the front end and code generation (-ptx); those with int64
    indices and values also through ptxas to SASS (-c): every atomic and functor is in that set.
    Each list is cut into one job per core."""
    names = gpu.all_name_expressions()
    assert len(names) > 100
    full = [n for n in names if "long long, false>" in n or not n.startswith(("spla_sc", "spla_ve"))]
    rest = sorted(set(names) - set(full))
    cross = sorted(set(_cross_product_names()) - set(names))
    cores = _cores()
    full += POPCOUNT_NAMES + _frontier_names() + _sssp_names()
    jobs = [(part[i::cores], [flag]) for part, flag in ((full, "-c"), (rest, "-ptx"), (cross, "-ptx"))
            for i in range(cores) if part[i::cores]]
    _assert_compiled(tmp_path, jobs)


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
    for add, mul, dt, idx, pattern in SAMPLE:
        names = list(gpu.name_expressions(add, mul, dt, idx, pattern).values())
        lowered = _nvrtc_compile(lib, source, names)
        assert all(v.startswith("_Z") for v in lowered.values())
    lowered = _nvrtc_compile(lib, cuda_source.load(gpu.BITS_SOURCE),
                             ["spla_weighted_rowsum<true>", "spla_weighted_rowsum<false>"])
    assert len(set(lowered.values())) == 2
    names = list(gpu.frontier_name_expressions(np.int32, np.int32).values())
    lowered = _nvrtc_compile(lib, cuda_source.load(gpu.FRONTIER_SOURCE), names)
    assert len(set(lowered.values())) == len(names)
    from spla.backends.gpu.spgemm import GROUP_SIZES, spgemm_name

    names = [spgemm_name(add, mul, dt, idx, pattern, not pattern, GROUP_SIZES[n % len(GROUP_SIZES)])
             for n, (add, mul, dt, idx, pattern) in enumerate(SAMPLE)]
    lowered = _nvrtc_compile(lib, cuda_source.load(gpu.SPGEMM_SOURCE), names)
    assert len(set(lowered.values())) == len(names)
    names = _sssp_names()
    lowered = _nvrtc_compile(lib, cuda_source.load(gpu.SSSP_SOURCE), names)
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
