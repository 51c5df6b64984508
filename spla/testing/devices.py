"""Where tests run, and how many examples they draw.

* :func:`available_devices`: ``"cpu"``, plus ``"gpu:0"`` when CuPy sees a GPU;
  :func:`device_params` and :func:`on_each_device` parametrize a pytest test over both (the GPU
  leg marked ``gpu`` and skipped without a GPU).
* :func:`scaled`: a number of examples times ``SPLA_TEST_SCALE`` (default 1).
* :func:`is_array`: whether a value is a NumPy or CuPy array.
"""

from __future__ import annotations

import os

import numpy as np

import spla
from .. import device as _dev


def is_array(x) -> bool:
    """Whether ``x`` is a NumPy or CuPy array."""
    return isinstance(x, np.ndarray) or _dev.is_cupy_array(x)


def scaled(n: int) -> int:
    """``n`` times the factor in the environment variable ``SPLA_TEST_SCALE`` (default 1).

    Use it for ``max_examples`` so one variable makes a whole suite more thorough
    (``SPLA_TEST_SCALE=10 pytest``) or quicker.
    """
    return max(1, int(round(n * float(os.environ.get("SPLA_TEST_SCALE", "1")))))


def available_devices():
    """``["cpu"]`` plus ``"gpu:0"`` when CuPy sees a GPU."""
    return ["cpu"] + (["gpu:0"] if spla.gpu_available() else [])


def device_params():
    """pytest params ``"cpu"`` and ``"gpu:0"`` (id "gpu", marked ``gpu``, skipped without a GPU)."""
    import pytest

    return [
        pytest.param("cpu", id="cpu"),
        pytest.param("gpu:0", id="gpu", marks=[
            pytest.mark.gpu,
            pytest.mark.skipif(not spla.gpu_available(), reason="no GPU: CuPy is not installed or sees no CUDA device"),
        ]),
    ]


def on_each_device(fn):
    """Decorator: parametrize a test over ``device`` in ("cpu", "gpu:0"); see :func:`device_params`."""
    import pytest

    return pytest.mark.parametrize("device", device_params())(fn)
