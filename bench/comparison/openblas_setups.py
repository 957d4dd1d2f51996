"""The OpenBLAS side of compare.py's matmul cases: cblas_sgemm through ctypes."""

import ctypes


def openblas_matmul_setup(batch, m, n, k, trans_a, trans_b):
    def setup(threads):
        import numpy as np

        library = ctypes.CDLL("libopenblas.so.0")
        library.openblas_set_num_threads(threads)
        sgemm = library.cblas_sgemm
        pointer, integer, single = ctypes.c_void_p, ctypes.c_int, ctypes.c_float
        sgemm.argtypes = [integer] * 6 + [single, pointer, integer, pointer, integer, single,
                                          pointer, integer]
        row_major, no_trans, trans = 101, 111, 112
        rng = np.random.default_rng(42)
        a = rng.standard_normal((batch,) + ((k, m) if trans_a else (m, k)), dtype=np.float32)
        b = rng.standard_normal((batch,) + ((n, k) if trans_b else (k, n)), dtype=np.float32)
        c = np.empty((batch, m, n), dtype=np.float32)
        lda, ldb = a.shape[2], b.shape[2]
        calls = [(a[i].ctypes.data, b[i].ctypes.data, c[i].ctypes.data) for i in range(batch)]
        flags = (trans if trans_a else no_trans, trans if trans_b else no_trans)

        def run(arrays=(a, b, c)):  # the arrays live as long as run does
            for a_data, b_data, c_data in calls:  # OpenBLAS 0.3.21 has no batched sgemm
                sgemm(row_major, flags[0], flags[1], m, n, k, 1.0, a_data, lda, b_data, ldb,
                      0.0, c_data, n)

        return run

    return setup
