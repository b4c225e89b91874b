"""AxScript twins of the C++ builder's larger guide kernels (examples/kernels/guide_kernels.cpp), for
the compile-time comparison of python_compile_bench.py: §6.2's matmul (with and without the bias
epilogue) and §6.2's convolution, written as the guide writes them, with the same constants, so
each builds the same IR as its C++ twin (the benchmark checks that it does).

``matmul(...)`` / ``conv3x3(...)`` return the ``@A.ir_module``; the program is built when its
class is decorated, from the shapes of the call (closure values of the prim_func)."""

import numpy as np

import axcore.script as A


def int8_values(n, seed):
    """guide_kernels.cpp's int8_values: a 32-bit LCG (s = s * 1664525 + 1013904223), the value
    (s >> 16) % 255 - 127, from s0 = seed * 2654435761 + 12345. Computed by doubling: from the
    first m states, the next m are a_m * s + c_m (mod 2^32)."""
    mask = np.uint64(0xFFFFFFFF)
    s0 = (seed * 2654435761 + 12345) & 0xFFFFFFFF
    a, c = 1664525, 1013904223
    states = np.array([(a * s0 + c) & 0xFFFFFFFF], dtype=np.uint64)
    am, cm = a, c  # the step of len(states) iterations
    while len(states) < n:
        states = np.concatenate([states, (np.uint64(am) * states + np.uint64(cm)) & mask])
        am, cm = (am * am) & 0xFFFFFFFF, (am * cm + cm) & 0xFFFFFFFF
    return ((states[:n] >> np.uint64(16)) % np.uint64(255)).astype(np.float64) - 127.0


def matmul(M, K_BLOCKS, N_BLOCKS, with_bias, seed=1):
    """§6.2's matrix multiply, inp (M, K_BLOCKS) int8x64 @ weights (K, N_BLOCKS), float32 out."""
    K = K_BLOCKS * 64
    W = int8_values(K * N_BLOCKS * 64, seed)
    B = 0.25 * (np.arange(N_BLOCKS * 64) % 17 - 8)

    @A.ir_module
    class MatMul:
        @A.prim_func
        def main(inp: A.Buffer((M, K_BLOCKS), "int8x64", scope=A.DDR)):
            weights = A.alloc_constant(W, "int8x64", scope=A.DDR, shape=(K, N_BLOCKS))
            bias = A.alloc_constant(B, "float32x64", scope=A.DDR, shape=(N_BLOCKS,))
            out = A.alloc_buffer((M, N_BLOCKS), "float32x64", scope=A.DDR)
            w_imc = A.alloc_imc((K_BLOCKS, N_BLOCKS), name="imc")
            for kb, nb in A.grid(K_BLOCKS, N_BLOCKS):
                with A.pseudo.LoadIMC():                        # 64 rows -> one IMC block
                    w_imc[kb, nb] = weights[kb * 64: kb * 64 + 64, nb]

            for m, nb in A.grid(M, N_BLOCKS):                   # one output block per datapath
                with A.Datapath(kind=A.DP_MVMEXE):
                    ifd_stream = A.decl_stream("int8x64")
                    mvm_stream = A.decl_stream("int32x64")
                    dpu_stream = A.decl_stream("float32x64")

                    for kb in A.serial(K_BLOCKS):               # IFD: stream the reduction
                        with A.IFD(num=0):
                            ifd_stream.push(inp[m, kb])

                    with A.pseudo.MatMul():                     # MAC against the resident weights
                        acc = A.mvm_accumulator()
                        A.reset_accumulator(acc)
                        for kb in A.serial(K_BLOCKS):
                            acc += A.mvm_1x1(ifd_stream.pop(), w_imc[kb, nb])
                        mvm_stream.push(acc)

                    with A.DPU():                               # the epilogue: a build-time if (§10)
                        if with_bias:
                            dpu_stream.push(A.cast(A.cast(mvm_stream.pop(), "float18x64")
                                                   + A.cast(bias[nb], "float18x64"), "float32x64"))
                        else:
                            dpu_stream.push(A.cast(mvm_stream.pop(), "float32x64"))

                    with A.ODR():
                        out[m, nb] = dpu_stream.pop()
            A.output(out)

    return MatMul


def conv3x3(OH, OW, C_IN_BLOCKS, N_BLOCKS, seed=2):
    """§6.2 as a convolution: the 3x3 window flattened into the reduction."""
    KH, KW = 3, 3
    K_BLOCKS = KH * KW * C_IN_BLOCKS
    W = int8_values(K_BLOCKS * 64 * N_BLOCKS * 64, seed)

    @A.ir_module
    class Conv3x3:
        @A.prim_func
        def main(inp: A.Buffer((OH + KH - 1, OW + KW - 1, C_IN_BLOCKS), "int8x64", scope=A.DDR)):
            weights = A.alloc_constant(W, "int8x64", scope=A.DDR, shape=(K_BLOCKS * 64, N_BLOCKS))
            out = A.alloc_buffer((OH, OW, N_BLOCKS), "float32x64", scope=A.DDR)
            w_imc = A.alloc_imc((K_BLOCKS, N_BLOCKS), name="imc")
            for kb, nb in A.grid(K_BLOCKS, N_BLOCKS):
                with A.pseudo.LoadIMC():
                    w_imc[kb, nb] = weights[kb * 64: kb * 64 + 64, nb]

            for y, x, nb in A.grid(OH, OW, N_BLOCKS):            # 1. one datapath per output pixel
                with A.Datapath(kind=A.DP_MVMEXE):
                    ifd_stream = A.decl_stream("int8x64")
                    mvm_stream = A.decl_stream("int32x64")
                    dpu_stream = A.decl_stream("float32x64")
                    for kh, kw, cib in A.grid(KH, KW, C_IN_BLOCKS):  # 2. stream the window, not a row
                        with A.IFD(num=0):
                            ifd_stream.push(inp[y + kh, x + kw, cib])
                    with A.pseudo.MatMul():
                        acc = A.mvm_accumulator()
                        A.reset_accumulator(acc)
                        for kb in A.serial(K_BLOCKS):           # 3. K_BLOCKS
                            acc += A.mvm_1x1(ifd_stream.pop(), w_imc[kb, nb])
                        mvm_stream.push(acc)
                    with A.DPU():
                        dpu_stream.push(A.cast(mvm_stream.pop(), "float32x64"))
                    with A.ODR():
                        out[y, x, nb] = dpu_stream.pop()
            A.output(out)

    return Conv3x3
